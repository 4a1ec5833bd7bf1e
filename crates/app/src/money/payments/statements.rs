//! Statements: a provider's earnings and a renter's spend, from the ledger.

use chrono::Utc;
use domain::{LedgerKind, Money, OrgId, Role};
use store::LedgerRecord;

use crate::{App, AppError, Caller};

/// Money totals by currency.
#[derive(Debug, Clone)]
pub struct Statement {
    pub entries: Vec<LedgerEntry>,
    /// One sum per currency, sorted by currency.
    pub totals: Vec<Money>,
}

/// One movement of money, as the ledger holds it (negative for money going back).
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerEntry {
    pub id: domain::LedgerEntryId,
    pub booking_id: domain::BookingId,
    pub kind: LedgerKind,
    /// Signed: money going back is negative.
    pub amount: Money,
    pub stripe_object_id: Option<String>,
    pub created_at: chrono::DateTime<Utc>,
}

impl TryFrom<LedgerRecord> for LedgerEntry {
    type Error = AppError;

    fn try_from(e: LedgerRecord) -> Result<Self, AppError> {
        Ok(Self {
            id: e.id.into(),
            booking_id: e.booking_id.into(),
            kind: e
                .kind
                .parse()
                .map_err(|e| AppError::Internal(format!("stored ledger row: {e}")))?,
            amount: crate::stored_money(e.amount, &e.currency)?,
            stripe_object_id: e.stripe_object_id,
            created_at: e.created_at,
        })
    }
}

/// The entries, and per currency the sum of those whose kind `counts`.
fn statement(entries: Vec<LedgerRecord>, counts: &[LedgerKind]) -> Result<Statement, AppError> {
    let entries = entries
        .into_iter()
        .map(LedgerEntry::try_from)
        .collect::<Result<Vec<_>, _>>()?;
    let mut totals: std::collections::BTreeMap<domain::Currency, i64> = Default::default();
    for e in entries.iter().filter(|e| counts.contains(&e.kind)) {
        *totals.entry(e.amount.currency()).or_default() += e.amount.minor();
    }
    Ok(Statement {
        entries,
        totals: totals
            .into_iter()
            .map(|(currency, minor)| Money::new(minor, currency))
            .collect(),
    })
}

impl App {
    /// A provider's earnings: what was transferred to it, less what was reversed (its
    /// owners and admins).
    pub async fn earnings(&self, caller: Caller, org: OrgId) -> Result<Statement, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let entries = self.db().ledger_of_org(org.as_uuid()).await?;
        statement(
            entries,
            &[LedgerKind::Transfer, LedgerKind::TransferReversal],
        )
    }

    /// A renter's spend: what was charged, less what was refunded.
    pub async fn spend(&self, caller: Caller) -> Result<Statement, AppError> {
        let entries = self.db().ledger_of_renter(caller.user_id.as_uuid()).await?;
        statement(entries, &[LedgerKind::Charge, LedgerKind::Refund])
    }
}
