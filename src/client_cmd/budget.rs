//! `budget set|show|remove`: your monthly budget, which refuses a booking or plan that would
//! take this month's spending past it.

use client::types;

use super::output::{fields, money};
use super::{Auth, Ctx, Failure, Global};

#[derive(Debug, clap::Args)]
pub struct BudgetArgs {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: BudgetCommand,
}

#[derive(Debug, clap::Subcommand)]
enum BudgetCommand {
    /// Set your monthly budget (replacing any): the most this calendar month's (UTC) bookings
    /// may cost.
    Set {
        /// In minor units of the currency (`50000` USD is 500.00 USD).
        #[arg(long)]
        amount_per_month: i64,
        /// An ISO 4217 code (`USD`, `EUR`, …).
        #[arg(long)]
        currency: String,
    },
    /// Your budget and where it stands this month: spent, left.
    Show,
    /// Remove your budget.
    Remove,
}

fn standing(ctx: &Ctx, b: &types::BudgetView) -> Result<(), Failure> {
    ctx.say(&fields(
        ctx.style,
        &[
            (
                "budget",
                format!("{} a month", money(b.amount_per_month, &b.currency)),
            ),
            ("month", b.month.clone()),
            ("spent", money(b.spent, &b.currency)),
            ("left", money(b.left, &b.currency)),
        ],
    ))
}

pub async fn budget(args: BudgetArgs) -> Result<(), Failure> {
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    match args.command {
        BudgetCommand::Set {
            amount_per_month,
            currency,
        } => {
            let body = types::PutBudgetRequest {
                amount_per_month,
                currency,
            };
            if let Some(b) = ctx.outcome(ctx.client.put_my_budget().body(body).send().await)? {
                standing(&ctx, &b)?;
            }
        }
        BudgetCommand::Show => {
            if let Some(b) = ctx.outcome(ctx.client.get_my_budget().send().await)? {
                standing(&ctx, &b)?;
            }
        }
        BudgetCommand::Remove => {
            if ctx
                .outcome(ctx.client.delete_my_budget().send().await)?
                .is_some()
            {
                ctx.say("budget removed\n")?;
            }
        }
    }
    ctx.finish()
}
