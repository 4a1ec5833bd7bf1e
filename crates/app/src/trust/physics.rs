//! The standard's physics rule (`domain::roofline`) applied to a report: a machine measured on
//! better hardware than it lists does not get the badge. Checked when the listing names both catalog
//! entries; otherwise the listing shows `hardware_checked: false`.

use store::ListingRecord;

/// The compliance reason's code.
pub use domain::roofline::EXCEEDS_HARDWARE_ROOFLINE;

/// `report` with the rule ([`domain::roofline::violations`]) applied: each offending cell adds
/// a reason and the report is no longer compliant. Unchanged when the listing names no
/// catalog pair.
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
    let valid = report.decode.iter().filter_map(|cell| {
        let total = cell
            .total_tok_s
            .filter(|_| cell.status == bench::Status::Valid)?;
        Some((cell.context_tokens, cell.concurrency, total))
    });
    let reasons = domain::roofline::violations(gpu, model, listing.gpu_count, valid);
    if !reasons.is_empty() {
        checked.compliance.compliant = false;
        checked.compliance.reasons.extend(reasons);
    }
    checked
}
