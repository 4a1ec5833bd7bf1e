//! The standard's physics rule (Compliance, `exceeds_hardware_roofline`): a valid decode cell
//! faster than the claimed GPU's memory bandwidth allows for the claimed model — beyond
//! `catalog::ROOFLINE_MARGIN` — makes the report non-compliant. A machine measured on better
//! hardware than it lists does not get the badge. Checked when the listing names both catalog
//! entries; otherwise the listing shows `hardware_checked: false`.

use store::ListingRecord;

/// The compliance reason's code.
pub const EXCEEDS_HARDWARE_ROOFLINE: &str = "exceeds_hardware_roofline";

/// `report` with the rule applied: each offending cell adds a reason and the report is no
/// longer compliant. Unchanged when the listing names no catalog pair.
pub(crate) fn check_roofline(listing: &ListingRecord, report: &bench::Report) -> bench::Report {
    let mut checked = report.clone();
    let Ok(catalogs) = catalog::Catalog::get() else {
        return checked;
    };
    let (Some(gpu), Some(model)) = (
        listing
            .catalog_gpu
            .as_deref()
            .and_then(|id| catalogs.gpu(id)),
        listing
            .catalog_model
            .as_deref()
            .and_then(|id| catalogs.model(id)),
    ) else {
        return checked;
    };
    // A listing of several GPUs may spread one engine over them.
    let gpus = f64::from(listing.gpu_count.max(1));
    for cell in &report.decode {
        let Some(total) = cell
            .total_tok_s
            .filter(|_| cell.status == bench::Status::Valid)
        else {
            continue;
        };
        let limit = gpus
            * catalog::physical_limit_total_tok_s(
                gpu,
                model,
                cell.context_tokens,
                cell.concurrency,
            );
        if total > limit {
            checked.compliance.compliant = false;
            checked.compliance.reasons.push(format!(
                "{EXCEEDS_HARDWARE_ROOFLINE}: {} tokens × {} streams measured {total:.1} tok/s, \
                 more than the {limit:.1} tok/s {} × {} can deliver for {} (memory-bandwidth \
                 roofline + {:.0} %)",
                cell.context_tokens,
                cell.concurrency,
                listing.gpu_count,
                gpu.name,
                model.name,
                catalog::ROOFLINE_MARGIN * 100.0,
            ));
        }
    }
    checked
}
