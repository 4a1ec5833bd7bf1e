//! What a provider's agent reports of its machine, against what the listing claims: the GPU
//! model by name through the catalog, their count, and each one's memory (`memory.total` ÷
//! 1024 within −7 % … +3 % of the claimed `vram_gb`: drivers report a little less than the
//! marketing figure, never more). What the agent reports is the machine's word, not an
//! attestation.

/// The most GPUs an agent may report of one machine (facts or health).
pub const MAX_GPUS: usize = 64;

/// Whether `uuid` may be a GPU's UUID as an agent reports it: 1 to 64 letters, digits and `-`.
pub fn valid_gpu_uuid(uuid: &str) -> bool {
    (1..=64).contains(&uuid.len()) && uuid.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The Unix account a whole-machine booking gets on its machine: `gm-` and the last 12 hex
/// digits of the booking's id (a UUIDv7's random tail: unique among a machine's bookings).
pub fn booking_account(booking: uuid::Uuid) -> String {
    let hex = booking.simple().to_string();
    format!("gm-{}", &hex[hex.len() - 12..])
}

/// Whether `name` is a booking's account name (`gm-` and 12 lower-case hex digits).
pub fn is_booking_account(name: &str) -> bool {
    name.strip_prefix("gm-").is_some_and(|hex| {
        hex.len() == 12 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// One GPU as the agent reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportedGpu {
    pub name: String,
    pub memory_total_mib: u64,
}

/// What the listing claims of its GPUs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClaimedGpus<'a> {
    pub gpu_model: &'a str,
    /// The catalog entry the listing names, when it names one.
    pub catalog_gpu: Option<&'a str>,
    pub gpu_count: i32,
    pub vram_gb: i32,
}

/// The memory a reported GPU may have against the claim: −7 % … +3 %.
pub const VRAM_BELOW: f64 = 0.07;
pub const VRAM_ABOVE: f64 = 0.03;

/// A GPU's name as the catalog knows it: its own name, or without the vendor's prefix
/// (`NVIDIA H100 80GB HBM3` is the catalog's `H100 80GB HBM3`).
fn catalog_id(name: &str) -> Option<String> {
    let catalog = catalog::Catalog::get().ok()?;
    let name = name.trim();
    catalog
        .gpu_named(name)
        .or_else(|| catalog.gpu_named(name.strip_prefix("NVIDIA ")?))
        .map(|gpu| gpu.id.clone())
}

/// Names compared without case, spaces or the vendor's prefix, where the catalog knows neither.
fn same_name(a: &str, b: &str) -> bool {
    let plain = |s: &str| {
        s.trim()
            .trim_start_matches("NVIDIA ")
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    plain(a) == plain(b)
}

/// How the reported GPUs differ from the claim, in words; empty when they match.
pub fn hardware_differences(claim: ClaimedGpus<'_>, reported: &[ReportedGpu]) -> Vec<String> {
    let mut differences = Vec::new();
    if i64::try_from(reported.len()).ok() != Some(i64::from(claim.gpu_count)) {
        differences.push(format!(
            "the listing claims {} GPUs, the agent reports {}",
            claim.gpu_count,
            reported.len()
        ));
    }
    let claimed_id = claim
        .catalog_gpu
        .map(str::to_owned)
        .or_else(|| catalog_id(claim.gpu_model));
    let mut names: Vec<&str> = Vec::new();
    for gpu in reported {
        let same = match (&claimed_id, catalog_id(&gpu.name)) {
            (Some(claimed), Some(found)) => *claimed == found,
            _ => same_name(claim.gpu_model, &gpu.name),
        };
        if !same && !names.contains(&gpu.name.as_str()) {
            names.push(&gpu.name);
        }
    }
    if !names.is_empty() {
        differences.push(format!(
            "the listing claims {}, the agent reports {}",
            claim.gpu_model,
            names.join(", ")
        ));
    }
    let claimed = f64::from(claim.vram_gb);
    let (low, high) = (claimed * (1.0 - VRAM_BELOW), claimed * (1.0 + VRAM_ABOVE));
    if let Some(gpu) = reported.iter().find(|g| {
        let gb = g.memory_total_mib as f64 / 1024.0;
        !(low..=high).contains(&gb)
    }) {
        differences.push(format!(
            "the listing claims {} GB a GPU, the agent reports {:.1} GiB ({} MiB; allowed {low:.1} … {high:.1})",
            claim.vram_gb,
            gpu.memory_total_mib as f64 / 1024.0,
            gpu.memory_total_mib
        ));
    }
    differences
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpus(name: &str, mib: u64, n: usize) -> Vec<ReportedGpu> {
        vec![
            ReportedGpu {
                name: name.to_owned(),
                memory_total_mib: mib
            };
            n
        ]
    }

    #[test]
    fn a_booking_s_account_is_named_by_its_id_s_tail() {
        let id: uuid::Uuid = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b".parse().unwrap();
        assert_eq!(booking_account(id), "gm-0c1d2e3f4a5b");
        assert!(is_booking_account(&booking_account(id)));
        for name in [
            "gm-0C1D2E3F4A5B",
            "gm-0c1d2e3f4a5",
            "root",
            "gm-0c1d2e3f4a5b0",
            "xgm-0c1d2e3f4a5",
        ] {
            assert!(!is_booking_account(name), "{name}");
        }
    }

    #[test]
    fn reported_gpus_match_their_claim_through_the_catalog() {
        let h100 = ClaimedGpus {
            gpu_model: "NVIDIA H100 SXM 80GB",
            catalog_gpu: Some("h100-sxm-80gb"),
            gpu_count: 1,
            vram_gb: 80,
        };
        // nvidia-smi's name, 81559 MiB = 79.6 GiB: within −7 %.
        assert!(hardware_differences(h100, &gpus("NVIDIA H100 80GB HBM3", 81559, 1)).is_empty());
        let rtx = ClaimedGpus {
            gpu_model: "NVIDIA GeForce RTX 3060",
            catalog_gpu: None,
            gpu_count: 1,
            vram_gb: 12,
        };
        assert!(hardware_differences(rtx, &gpus("NVIDIA GeForce RTX 3060", 12288, 1)).is_empty());
        let differences = hardware_differences(rtx, &gpus("NVIDIA H100 80GB HBM3", 81559, 2));
        assert_eq!(differences.len(), 3, "{differences:?}");
        assert!(differences[0].contains("claims 1 GPUs, the agent reports 2"));
        assert!(differences[1].contains("reports NVIDIA H100 80GB HBM3"));
        assert!(differences[2].contains("81559 MiB"));
        // 8 GB reported for a claimed 12: too little memory, whatever the name.
        let small = hardware_differences(rtx, &gpus("NVIDIA GeForce RTX 3060", 8192, 1));
        assert_eq!(small.len(), 1, "{small:?}");
        // A name the catalog does not know is compared as written.
        let odd = ClaimedGpus {
            gpu_model: "Acme X1",
            catalog_gpu: None,
            gpu_count: 1,
            vram_gb: 16,
        };
        assert!(hardware_differences(odd, &gpus("acme x1", 16384, 1)).is_empty());
    }
}
