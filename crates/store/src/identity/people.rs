//! People's data: everything held about a person, read for their export, and their erasure —
//! the account's row kept (bookings and the ledger name it by id) with nothing personal left.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use domain::{Role, UserId};
use sea_orm::prelude::Expr;
use sea_orm::{
    ColumnTrait, Condition, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde_json::Value;
use uuid::Uuid;

use crate::entities::{
    api_keys, bid_raises, booking_plans, bookings, budget_alerts, budgets, community_runs,
    container_logs, email_tokens, invitations, ledger_entries, login_networks, maintenance_windows,
    memberships, org_audit, orgs, refresh_tokens, report_shares, runs, ssh_keys, users,
    webhook_endpoints, webhook_events,
};
use crate::identity::orgs::lock_org;
use crate::status::booking_status;
use crate::{Db, StoreError};

/// Every table that names a person, with the columns that name them (an id, or an address):
/// what an export reads and an erasure goes through. A test compares it with the schema, so a
/// new table naming a person is not forgotten.
pub const PERSON_TABLES: &[(&str, &[&str])] = &[
    ("users", &["id", "email", "name", "handle"]),
    ("memberships", &["user_id"]),
    ("api_keys", &["user_id"]),
    ("ssh_keys", &["user_id"]),
    ("refresh_tokens", &["user_id"]),
    ("login_networks", &["user_id"]),
    ("email_tokens", &["user_id", "email"]),
    ("invitations", &["invited_by", "accepted_by", "email"]),
    ("bookings", &["renter_id"]),
    ("bid_raises", &["renter_id"]),
    ("booking_plans", &["renter_id"]),
    ("ledger_entries", &["renter_id"]),
    ("budgets", &["user_id"]),
    ("budget_alerts", &["user_id"]),
    ("webhook_endpoints", &["owner_user_id", "created_by"]),
    ("webhook_events", &["renter_id"]),
    ("maintenance_windows", &["created_by"]),
    ("report_shares", &["created_by"]),
    ("verification_runs", &["requested_by"]),
    ("community_runs", &["submitter_id", "submitter_handle"]),
    ("org_audit", &["actor_id"]),
];

/// Columns an export never carries: digests of secrets, and secrets shown once.
const WITHHELD: &[&str] = &[
    "password_hash",
    "token_hash",
    "key_hash",
    "client_secret",
    "secret",
    "previous_secret",
];

/// A person's rows, by table (each table of [`PERSON_TABLES`], empty when none).
pub type PersonRows = BTreeMap<&'static str, Vec<Value>>;

/// What became of an erasure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Erasure {
    /// Erased; these login sessions ended with it.
    Erased { sessions: Vec<Uuid> },
    /// The person is the only owner of this organisation.
    SoleOwner { org: String },
    /// So many bookings of theirs have not ended.
    BookingsNotEnded { count: u64 },
    /// No such account, or one erased already.
    Unknown,
}

/// The address an erased account keeps: unique, and no address anyone can sign in with (no
/// `@`: the address parser refuses it).
pub fn erased_email(user: Uuid) -> String {
    format!("erased-account-{user}")
}

/// The name an erased account keeps.
pub const ERASED_NAME: &str = "erased account";

/// Reads the models `$find` selects into JSON rows without the withheld columns.
macro_rules! rows_of {
    ($find:expr, $conn:expr) => {
        $find
            .all($conn)
            .await?
            .into_iter()
            .map(|model| to_row(serde_json::to_value(model)))
            .collect::<Result<Vec<_>, StoreError>>()?
    };
}

fn to_row(value: Result<Value, serde_json::Error>) -> Result<Value, StoreError> {
    let mut value = value.map_err(|e| StoreError::Corrupt(format!("a row as JSON: {e}")))?;
    if let Some(fields) = value.as_object_mut() {
        for column in WITHHELD {
            fields.remove(*column);
        }
    }
    Ok(value)
}

impl Db {
    /// Every row of [`PERSON_TABLES`] naming `user` (by id, or by their address), without
    /// secrets; `None` for no such account.
    pub async fn person_rows(&self, user: UserId) -> Result<Option<PersonRows>, StoreError> {
        let conn = self.conn();
        let id = user.as_uuid();
        let Some(person) = users::Entity::find_by_id(id).one(conn).await? else {
            return Ok(None);
        };
        let email = person.email.clone();
        let mut rows = PersonRows::new();
        rows.insert("users", vec![to_row(serde_json::to_value(person))?]);
        rows.insert(
            "memberships",
            rows_of!(
                memberships::Entity::find().filter(memberships::Column::UserId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "api_keys",
            rows_of!(
                api_keys::Entity::find().filter(api_keys::Column::UserId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "ssh_keys",
            rows_of!(
                ssh_keys::Entity::find().filter(ssh_keys::Column::UserId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "refresh_tokens",
            rows_of!(
                refresh_tokens::Entity::find().filter(refresh_tokens::Column::UserId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "login_networks",
            rows_of!(
                login_networks::Entity::find().filter(login_networks::Column::UserId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "email_tokens",
            rows_of!(
                email_tokens::Entity::find().filter(
                    Condition::any()
                        .add(email_tokens::Column::UserId.eq(id))
                        .add(email_tokens::Column::Email.eq(&email))
                ),
                conn
            ),
        );
        rows.insert(
            "invitations",
            rows_of!(
                invitations::Entity::find().filter(
                    Condition::any()
                        .add(invitations::Column::InvitedBy.eq(id))
                        .add(invitations::Column::AcceptedBy.eq(id))
                        .add(invitations::Column::Email.eq(&email))
                ),
                conn
            ),
        );
        rows.insert(
            "bookings",
            rows_of!(
                bookings::Entity::find().filter(bookings::Column::RenterId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "bid_raises",
            rows_of!(
                bid_raises::Entity::find().filter(bid_raises::Column::RenterId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "booking_plans",
            rows_of!(
                booking_plans::Entity::find().filter(booking_plans::Column::RenterId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "ledger_entries",
            rows_of!(
                ledger_entries::Entity::find().filter(ledger_entries::Column::RenterId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "budgets",
            rows_of!(
                budgets::Entity::find().filter(budgets::Column::UserId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "budget_alerts",
            rows_of!(
                budget_alerts::Entity::find().filter(budget_alerts::Column::UserId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "webhook_endpoints",
            rows_of!(
                webhook_endpoints::Entity::find().filter(
                    Condition::any()
                        .add(webhook_endpoints::Column::OwnerUserId.eq(id))
                        .add(webhook_endpoints::Column::CreatedBy.eq(id))
                ),
                conn
            ),
        );
        rows.insert(
            "webhook_events",
            rows_of!(
                webhook_events::Entity::find().filter(webhook_events::Column::RenterId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "maintenance_windows",
            rows_of!(
                maintenance_windows::Entity::find()
                    .filter(maintenance_windows::Column::CreatedBy.eq(id)),
                conn
            ),
        );
        rows.insert(
            "report_shares",
            rows_of!(
                report_shares::Entity::find().filter(report_shares::Column::CreatedBy.eq(id)),
                conn
            ),
        );
        rows.insert(
            "verification_runs",
            rows_of!(
                runs::Entity::find().filter(runs::Column::RequestedBy.eq(id)),
                conn
            ),
        );
        rows.insert(
            "community_runs",
            rows_of!(
                community_runs::Entity::find().filter(community_runs::Column::SubmitterId.eq(id)),
                conn
            ),
        );
        rows.insert(
            "org_audit",
            rows_of!(
                org_audit::Entity::find().filter(org_audit::Column::ActorId.eq(id)),
                conn
            ),
        );
        Ok(Some(rows))
    }

    /// Erases `user` in one transaction, unless they are an organisation's only owner or a
    /// booking of theirs has not ended. Their sessions and every key they made are revoked;
    /// their SSH keys, networks, mailed links, budgets, invitations addressed to them and
    /// their own webhook endpoints deleted; they leave every organisation (the share links
    /// they made revoked, the organisation's endpoints they registered disabled); their
    /// community runs withdrawn (signed receipts keep the handle they were signed with); the
    /// account keeps its row, its address and name replaced. Bookings, plans, raises and the
    /// ledger stay, as accounting requires: they name the account by id only.
    pub async fn erase_person(
        &self,
        user: UserId,
        now: DateTime<Utc>,
    ) -> Result<Erasure, StoreError> {
        let id = user.as_uuid();
        let txn = self.write().await?;
        // The account's row lock (a no-op write): bookings of the account queue here.
        let locked = users::Entity::update_many()
            .col_expr(users::Column::Email, Expr::col(users::Column::Email))
            .filter(users::Column::Id.eq(id))
            .filter(users::Column::DeletedAt.is_null())
            .exec(&txn)
            .await?;
        if locked.rows_affected == 0 {
            return Ok(Erasure::Unknown);
        }
        let owned: Vec<Uuid> = memberships::Entity::find()
            .select_only()
            .column(memberships::Column::OrgId)
            .filter(memberships::Column::UserId.eq(id))
            .filter(memberships::Column::Role.eq(Role::Owner.as_str()))
            // Locked in one order, so two erasures never wait on each other.
            .order_by_asc(memberships::Column::OrgId)
            .into_tuple()
            .all(&txn)
            .await?;
        for org in owned {
            lock_org(&txn, org).await?;
            let others = memberships::Entity::find()
                .filter(memberships::Column::OrgId.eq(org))
                .filter(memberships::Column::Role.eq(Role::Owner.as_str()))
                .filter(memberships::Column::UserId.ne(id))
                .count(&txn)
                .await?;
            if others == 0 {
                let name = orgs::Entity::find_by_id(org)
                    .one(&txn)
                    .await?
                    .map(|o| o.name)
                    .unwrap_or_default();
                return Ok(Erasure::SoleOwner { org: name });
            }
        }
        let open = bookings::Entity::find()
            .filter(bookings::Column::RenterId.eq(id))
            .filter(
                Condition::any()
                    .add(
                        Condition::all()
                            .add(bookings::Column::Status.is_in(booking_status::GIVING_ACCESS))
                            .add(bookings::Column::EndsAt.gt(now)),
                    )
                    // Awaiting payment, even past its hold until the sweep expires it: a
                    // payment arriving late would still confirm it.
                    .add(bookings::Column::Status.eq(booking_status::PENDING_PAYMENT)),
            )
            .count(&txn)
            .await?;
        if open > 0 {
            return Ok(Erasure::BookingsNotEnded { count: open });
        }

        let person = users::Entity::find_by_id(id)
            .one(&txn)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("user {id} vanished under its lock")))?;
        // Sessions: revoked, so every replica refuses their access tokens.
        let sessions: Vec<Uuid> = refresh_tokens::Entity::find()
            .select_only()
            .column(refresh_tokens::Column::FamilyId)
            .distinct()
            .filter(refresh_tokens::Column::UserId.eq(id))
            .filter(refresh_tokens::Column::RevokedAt.is_null())
            .into_tuple()
            .all(&txn)
            .await?;
        refresh_tokens::Entity::update_many()
            .col_expr(refresh_tokens::Column::RevokedAt, Expr::value(now))
            .filter(refresh_tokens::Column::UserId.eq(id))
            .filter(refresh_tokens::Column::RevokedAt.is_null())
            .exec(&txn)
            .await?;
        // Every key they made, their own and their organisations', revoked; its name (theirs
        // to choose) forgotten.
        api_keys::Entity::update_many()
            .col_expr(api_keys::Column::RevokedAt, Expr::value(now))
            .filter(api_keys::Column::UserId.eq(id))
            .filter(api_keys::Column::RevokedAt.is_null())
            .exec(&txn)
            .await?;
        api_keys::Entity::update_many()
            .col_expr(api_keys::Column::Name, Expr::value(ERASED_NAME))
            .filter(api_keys::Column::UserId.eq(id))
            .exec(&txn)
            .await?;
        ssh_keys::Entity::delete_many()
            .filter(ssh_keys::Column::UserId.eq(id))
            .exec(&txn)
            .await?;
        login_networks::Entity::delete_many()
            .filter(login_networks::Column::UserId.eq(id))
            .exec(&txn)
            .await?;
        email_tokens::Entity::delete_many()
            .filter(
                Condition::any()
                    .add(email_tokens::Column::UserId.eq(id))
                    .add(email_tokens::Column::Email.eq(&person.email)),
            )
            .exec(&txn)
            .await?;
        budget_alerts::Entity::delete_many()
            .filter(budget_alerts::Column::UserId.eq(id))
            .exec(&txn)
            .await?;
        budgets::Entity::delete_many()
            .filter(budgets::Column::UserId.eq(id))
            .exec(&txn)
            .await?;
        // Invitations to their address: the pending ones go, the accepted ones keep who
        // accepted (by id) without the address.
        invitations::Entity::delete_many()
            .filter(invitations::Column::Email.eq(&person.email))
            .filter(invitations::Column::AcceptedAt.is_null())
            .exec(&txn)
            .await?;
        invitations::Entity::update_many()
            .col_expr(invitations::Column::Email, Expr::value(erased_email(id)))
            .filter(invitations::Column::Email.eq(&person.email))
            .exec(&txn)
            .await?;
        // Their own webhook endpoints (with their deliveries) go; the organisations' they
        // registered stop, as when a member leaves.
        webhook_endpoints::Entity::delete_many()
            .filter(webhook_endpoints::Column::OwnerUserId.eq(id))
            .exec(&txn)
            .await?;
        webhook_endpoints::Entity::update_many()
            .col_expr(webhook_endpoints::Column::Enabled, Expr::value(false))
            .col_expr(webhook_endpoints::Column::DisabledAt, Expr::value(now))
            .col_expr(
                webhook_endpoints::Column::DisabledReason,
                Expr::value("the member who registered it deleted their account"),
            )
            .filter(webhook_endpoints::Column::CreatedBy.eq(id))
            .filter(webhook_endpoints::Column::Enabled.eq(true))
            .exec(&txn)
            .await?;
        report_shares::Entity::update_many()
            .col_expr(report_shares::Column::RevokedAt, Expr::value(now))
            .filter(report_shares::Column::CreatedBy.eq(id))
            .filter(report_shares::Column::RevokedAt.is_null())
            .exec(&txn)
            .await?;
        memberships::Entity::delete_many()
            .filter(memberships::Column::UserId.eq(id))
            .exec(&txn)
            .await?;
        community_runs::Entity::update_many()
            .col_expr(community_runs::Column::WithdrawnAt, Expr::value(now))
            .filter(community_runs::Column::SubmitterId.eq(id))
            .filter(community_runs::Column::WithdrawnAt.is_null())
            .exec(&txn)
            .await?;
        // What their containers printed is theirs.
        container_logs::Entity::delete_many()
            .filter(
                container_logs::Column::BookingId.in_subquery(
                    sea_orm::sea_query::Query::select()
                        .column(bookings::Column::Id)
                        .from(bookings::Entity)
                        .and_where(bookings::Column::RenterId.eq(id))
                        .to_owned(),
                ),
            )
            .exec(&txn)
            .await?;
        // Payment secrets of their bookings are of no use to anyone now.
        bookings::Entity::update_many()
            .col_expr(
                bookings::Column::ClientSecret,
                Expr::value(Option::<String>::None),
            )
            .filter(bookings::Column::RenterId.eq(id))
            .exec(&txn)
            .await?;
        bid_raises::Entity::update_many()
            .col_expr(
                bid_raises::Column::ClientSecret,
                Expr::value(Option::<String>::None),
            )
            .filter(bid_raises::Column::RenterId.eq(id))
            .exec(&txn)
            .await?;
        // Organisations' trails keep what they did by the account's id, not from where.
        crate::identity::audit::pseudonymise(&txn, id, &person.email, &erased_email(id)).await?;
        users::Entity::update_many()
            .col_expr(users::Column::Email, Expr::value(erased_email(id)))
            .col_expr(users::Column::Name, Expr::value(ERASED_NAME))
            // No password opens it (not a hash any password matches).
            .col_expr(users::Column::PasswordHash, Expr::value("erased"))
            .col_expr(users::Column::DeletedAt, Expr::value(now))
            .col_expr(
                users::Column::EmailVerifiedAt,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .filter(users::Column::Id.eq(id))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(Erasure::Erased { sessions })
    }

    /// The pseudonymous handle `user`'s community receipts carry, made from `fresh` the first
    /// time (`fresh` is called until one is free).
    pub async fn community_handle(
        &self,
        user: UserId,
        fresh: impl Fn() -> String,
    ) -> Result<String, StoreError> {
        let id = user.as_uuid();
        for _ in 0..8 {
            let current: Option<Option<String>> = users::Entity::find_by_id(id)
                .select_only()
                .column(users::Column::Handle)
                .into_tuple()
                .one(self.conn())
                .await?;
            match current {
                None => return Err(StoreError::Corrupt(format!("no account {id}"))),
                Some(Some(handle)) => return Ok(handle),
                Some(None) => {}
            }
            // Set once (the first of racing submissions wins); a handle taken is tried again.
            match users::Entity::update_many()
                .col_expr(users::Column::Handle, Expr::value(fresh()))
                .filter(users::Column::Id.eq(id))
                .filter(users::Column::Handle.is_null())
                .exec(self.conn())
                .await
                .map_err(crate::conflict_as("handle"))
            {
                Ok(_) | Err(StoreError::Conflict(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Conflict("handle"))
    }
}
