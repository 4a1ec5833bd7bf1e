//! The standard's physics rule (Compliance, `exceeds_hardware_roofline`): a valid decode cell
//! faster than the claimed GPUs' memory bandwidth allows for the claimed model — beyond
//! `catalog::ROOFLINE_MARGIN` — makes the report non-compliant. Pure: the worker looks the
//! catalog entries up and applies the reasons.

use catalog::{Gpu, Model};

/// The compliance reason's code.
pub const EXCEEDS_HARDWARE_ROOFLINE: &str = "exceeds_hardware_roofline";

/// The reasons `cells` (valid decode cells as `(context, concurrency, total tok/s)`) break the
/// roofline of `gpu_count` × `gpu` serving `model` (a listing of several GPUs may spread one
/// engine over them); empty when none does.
pub fn violations(
    gpu: &Gpu,
    model: &Model,
    gpu_count: i32,
    cells: impl IntoIterator<Item = (u64, u64, f64)>,
) -> Vec<String> {
    let gpus = f64::from(gpu_count.max(1));
    cells
        .into_iter()
        .filter_map(|(context, concurrency, total)| {
            let limit =
                gpus * catalog::physical_limit_total_tok_s(gpu, model, context, concurrency);
            (total > limit).then(|| {
                format!(
                    "{EXCEEDS_HARDWARE_ROOFLINE}: {context} tokens × {concurrency} streams \
                     measured {total:.1} tok/s, more than the {limit:.1} tok/s {gpu_count} × {} \
                     can deliver for {} (memory-bandwidth roofline + {:.0} %)",
                    gpu.name,
                    model.name,
                    catalog::ROOFLINE_MARGIN * 100.0,
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cells_beyond_the_roofline_and_its_margin_are_reasons() {
        let catalogs = catalog::Catalog::get().unwrap();
        let gpu = catalogs.gpus.first().unwrap();
        let model = catalogs.models.first().unwrap();
        let limit = catalog::physical_limit_total_tok_s(gpu, model, 1024, 4);
        assert!(violations(gpu, model, 1, [(1024, 4, limit * 0.99)]).is_empty());
        let reasons = violations(gpu, model, 1, [(1024, 4, limit * 1.01), (0, 1, 0.1)]);
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(reasons[0].starts_with("exceeds_hardware_roofline: 1024 tokens × 4 streams"));
        // Two GPUs allow twice the figure.
        assert!(violations(gpu, model, 2, [(1024, 4, limit * 1.5)]).is_empty());
    }
}
