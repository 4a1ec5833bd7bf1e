//! JSON for the busiest response, a search page, written by sonic-rs: it escapes strings a
//! vector at a time where serde_json looks at every byte, which was a quarter of a search's
//! instructions (`docs/src/measurements.md#search-from-memory`). The bytes are serde_json's:
//! the property test below compares them for every kind of value a page holds.
//!
//! A search page is not serialised whole: each hit's listing is written once per stored
//! version of the listing ([`ListingJson`], kept with the record search shares) and a page
//! copies those bytes, writing only what changes from one search to the next — the badge's
//! age, the figures the hit was found by, the cursor.

use app::AppError;
use app::market::listings::SearchHit;
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::error::ApiError;
use crate::views::{ListingView, MatchView};

/// `value` as JSON, in a buffer of `capacity` bytes to start with (a body written once into
/// a buffer of about its size is not grown by doubling and copying).
pub fn to_vec<T: Serialize + ?Sized>(value: &T, capacity: usize) -> Result<Vec<u8>, ApiError> {
    let mut body = Vec::with_capacity(capacity);
    write(&mut body, value)?;
    Ok(body)
}

fn write<T: Serialize + ?Sized>(body: &mut Vec<u8>, value: &T) -> Result<(), ApiError> {
    sonic_rs::to_writer(body, value)
        .map_err(|e| ApiError::from(AppError::Internal(format!("a JSON body: {e}"))))
}

/// The age written where a listing's badge age goes, to find the place.
const AGE_MARK: i64 = i64::MIN;

/// A listing as a search hit shows it, as JSON: the object without its closing brace (the
/// hit's `match` follows), and where the badge's age goes — the one figure of a listing that
/// changes with the clock — with the time it counts from.
#[derive(Debug)]
pub struct ListingJson {
    bytes: Vec<u8>,
    age: Option<(usize, DateTime<Utc>)>,
}

impl ListingJson {
    /// The hit's listing as JSON, written the first time a search finds this stored version
    /// of it and kept with the record search shares: search is the busiest page, and most of
    /// a page is listings that were on another page a moment ago.
    pub fn kept(hit: &SearchHit) -> Result<&Self, ApiError> {
        let kept = hit.derived(|listing| {
            let view = ListingView::new(listing.map_err(|e| e.to_string())?, false);
            Self::of(view).map_err(|e| e.to_string())
        });
        let internal = |what: String| ApiError::from(AppError::Internal(what));
        kept.ok_or_else(|| internal("a search hit keeps another kind of value".into()))?
            .as_ref()
            .map_err(|e| internal(e.clone()))
    }

    pub fn of(mut view: ListingView) -> Result<Self, ApiError> {
        let verified_at = view.verification.as_mut().map(|v| {
            v.age_s = AGE_MARK;
            v.verified_at
        });
        let mut bytes = to_vec(&view, 1024)?;
        bytes.pop();
        let age = match verified_at {
            None => None,
            Some(at) => {
                // Keys are written unescaped and strings' quotes escaped, so `"age_s":`
                // followed by the mark is the field, not text inside a value.
                let digits = AGE_MARK.to_string();
                let field = format!("\"age_s\":{digits}");
                let start = (0..bytes.len())
                    .find(|&at| bytes[at] == b'"' && bytes[at..].starts_with(field.as_bytes()))
                    .ok_or_else(|| {
                        ApiError::from(AppError::Internal(
                            "a listing's JSON without its badge's age".into(),
                        ))
                    })?;
                let place = start + field.len() - digits.len();
                bytes.drain(place..place + digits.len());
                Some((place, at))
            }
        };
        // Kept as long as the record: no spare room.
        bytes.shrink_to_fit();
        Ok(Self { bytes, age })
    }

    /// Seconds since the badge's report at `now`, for a listing with a badge.
    pub fn age_s(&self, now: DateTime<Utc>) -> Option<i64> {
        self.age.map(|(_, at)| (now - at).num_seconds())
    }

    fn len(&self) -> usize {
        self.bytes.len()
    }
}

/// One hit of a search page: its listing's JSON, the badge's age now, and what it was
/// found by.
pub struct Hit<'a> {
    pub listing: &'a ListingJson,
    pub age_s: Option<i64>,
    pub figures: MatchView,
}

/// A search page, `{items, next_cursor}`, as serialising `Page<SearchHitView>` writes it.
pub fn search_page(hits: &[Hit<'_>], next_cursor: Option<&str>) -> Result<Vec<u8>, ApiError> {
    // Room for every listing, its figures and the cursor (sonic-rs wants room for a string's
    // worst-case escaping, six bytes a byte, before it writes it): written once, not grown.
    let size = hits.iter().map(|h| h.listing.len() + 128).sum::<usize>()
        + next_cursor.map_or(0, |c| 6 * c.len() + 35)
        + 64;
    let mut body = Vec::with_capacity(size);
    body.extend_from_slice(b"{\"items\":[");
    for (i, hit) in hits.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        let bytes = &hit.listing.bytes;
        match (hit.listing.age, hit.age_s) {
            (Some((place, _)), Some(age_s)) => {
                body.extend_from_slice(&bytes[..place]);
                write(&mut body, &age_s)?;
                body.extend_from_slice(&bytes[place..]);
            }
            (None, _) => body.extend_from_slice(bytes),
            (Some(_), None) => {
                return Err(
                    AppError::Internal("a search hit with a badge but no age".into()).into(),
                );
            }
        }
        body.extend_from_slice(b",\"match\":");
        write(&mut body, &hit.figures)?;
        body.push(b'}');
    }
    body.extend_from_slice(b"],\"next_cursor\":");
    write(&mut body, &next_cursor)?;
    body.push(b'}');
    Ok(body)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::{DateTime, TimeZone, Utc};
    use proptest::prelude::*;
    use uuid::Uuid;

    use super::{Hit, ListingJson, search_page, to_vec};
    use crate::views::*;

    /// Any text, often with what JSON must escape (quotes, backslashes, control characters)
    /// and with multi-byte characters, at every length around sonic-rs's 32-byte blocks.
    fn text() -> impl Strategy<Value = String> {
        let tricky = prop::sample::select(vec![
            '"', '\\', '\n', '\r', '\t', '\u{8}', '\u{c}', '\0', '\u{1f}', '\u{7f}', '/', 'é', '€',
            '😀', '\u{2028}',
        ]);
        let char = prop_oneof![3 => any::<char>(), 2 => tricky, 5 => Just('a')];
        prop::collection::vec(char, 0..80).prop_map(String::from_iter)
    }

    fn time() -> impl Strategy<Value = DateTime<Utc>> {
        (-2_000_000_000i64..5_000_000_000, 0u32..1_000_000_000)
            .prop_map(|(secs, nanos)| Utc.timestamp_opt(secs, nanos).unwrap())
    }

    /// Every float class: NaN and infinities (written as `null`), subnormals, zeros.
    fn float() -> impl Strategy<Value = f64> {
        prop_oneof![any::<f64>(), -1e6f64..1e6, Just(0.1 + 0.2), Just(-0.0)]
    }

    fn uuid() -> impl Strategy<Value = Uuid> {
        any::<u128>().prop_map(Uuid::from_u128)
    }

    fn verification() -> impl Strategy<Value = VerificationSummaryView> {
        (
            uuid(),
            time(),
            prop::option::of(time()),
            any::<i64>(),
            prop::option::of(float()),
            prop::option::of(float()),
            any::<bool>(),
        )
            .prop_map(
                |(report_id, verified_at, expires_at, age_s, best, single, checked)| {
                    VerificationSummaryView {
                        report_id,
                        verified_at,
                        expires_at,
                        age_s,
                        best_total_tok_s: best,
                        single_stream_tok_s: single,
                        hardware_checked: checked,
                    }
                },
            )
    }

    fn parts() -> impl Strategy<Value = (HardwareView, PriceView, EngineView, AccessView)> {
        let hardware = (text(), any::<i32>(), any::<i32>(), text(), any::<i32>()).prop_map(
            |(gpu_model, gpu_count, vram_gb, cpu_model, ram_gb)| HardwareView {
                gpu_model,
                gpu_count,
                vram_gb,
                cpu_model,
                ram_gb,
            },
        );
        let price = (any::<i64>(), text(), prop::option::of(any::<i64>())).prop_map(
            |(amount_per_gpu_hour, currency, min_bid_per_gpu_hour)| PriceView {
                amount_per_gpu_hour,
                currency,
                min_bid_per_gpu_hour,
            },
        );
        let engine = (
            prop::option::of(text()),
            text(),
            prop::option::of(text()),
            any::<bool>(),
        )
            .prop_map(|(base_url, model, name, has_api_key)| EngineView {
                base_url,
                model,
                name,
                has_api_key,
            });
        let ssh = (text(), any::<i64>(), text()).prop_map(|(host, port, user)| SshView {
            host,
            port,
            user,
        });
        let access = (
            prop::sample::subsequence(vec!["ssh", "https"], 0..=2),
            prop::option::of(ssh),
            prop::option::of(text()),
        )
            .prop_map(|(methods, ssh, https_url)| AccessView {
                containers: None,
                methods,
                ssh,
                https_url,
            });
        (hardware, price, engine, access)
    }

    type Extras = (
        Option<VerificationCostView>,
        Option<CatalogView>,
        Option<GuaranteeView>,
        Option<f64>,
        Option<LivenessView>,
    );

    fn extras() -> impl Strategy<Value = Extras> {
        let cost = (float(), float(), any::<u64>(), any::<u64>()).prop_map(
            |(wall_s, gpu_s_estimate, cells_run, cells_skipped)| VerificationCostView {
                wall_s,
                gpu_s_estimate,
                cells_run,
                cells_skipped,
            },
        );
        let catalog = (prop::option::of(text()), prop::option::of(text()))
            .prop_map(|(gpu, model)| CatalogView { gpu, model });
        let guarantee = float().prop_map(|min_fraction| GuaranteeView { min_fraction });
        let liveness = (prop::sample::select(vec!["up", "down"]), time())
            .prop_map(|(state, since)| LivenessView { state, since });
        (
            prop::option::of(cost),
            prop::option::of(catalog),
            prop::option::of(guarantee),
            prop::option::of(float()),
            prop::option::of(liveness),
        )
    }

    fn hit() -> impl Strategy<Value = SearchHitView> {
        let ids = (uuid(), uuid(), text(), text(), text());
        let times = (prop::option::of(time()), prop::option::of(time()), time());
        let state = prop::sample::select(vec!["unverified", "verified", "expired", "demoted"]);
        let figures = (prop::option::of(float()), prop::option::of(float()));
        (
            ids,
            times,
            parts(),
            (
                state,
                prop::option::of(verification()),
                any::<bool>(),
                any::<bool>(),
            ),
            extras(),
            figures,
        )
            .prop_map(
                |(
                    (id, org_id, title, region, status),
                    (from, until, created_at),
                    (hardware, price, engine, access),
                    (verification_state, verification, verified, hardware_confirmed),
                    (last_verification_cost, catalog, guarantee, reliability, liveness),
                    (total_tok_s, price_per_mtok),
                )| SearchHitView {
                    listing: ListingView {
                        id,
                        org_id,
                        title,
                        hardware,
                        hardware_confirmed,
                        region,
                        price,
                        engine,
                        availability: AvailabilityWindowView { from, until },
                        access,
                        status,
                        verified,
                        verification_state,
                        verification,
                        last_verification_cost,
                        catalog,
                        guarantee,
                        reliability,
                        liveness,
                        created_at,
                    },
                    figures: MatchView {
                        total_tok_s,
                        price_per_mtok,
                        energy_j_per_token: None,
                    },
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn a_search_page_is_written_as_serde_json_writes_it(
            items in prop::collection::vec(hit(), 0..4),
            next_cursor in prop::option::of(text()),
        ) {
            let page = Page { items, next_cursor };
            let ours = to_vec(&page, 16).unwrap();
            let serde = serde_json::to_vec(&page).unwrap();
            let serde = String::from_utf8(serde).unwrap();
            prop_assert_eq!(&String::from_utf8(ours).unwrap(), &serde);

            // The same page from each listing's JSON written once, its age put in after.
            let ages: Vec<_> = page
                .items
                .iter()
                .map(|h| h.listing.verification.as_ref().map(|v| v.age_s))
                .collect();
            let mut listings = Vec::new();
            let mut figures = Vec::new();
            for hit in page.items {
                listings.push(ListingJson::of(hit.listing).unwrap());
                figures.push(hit.figures);
            }
            let hits: Vec<_> = listings
                .iter()
                .zip(ages)
                .zip(figures)
                .map(|((listing, age_s), figures)| Hit { listing, age_s, figures })
                .collect();
            let copied = search_page(&hits, page.next_cursor.as_deref()).unwrap();
            prop_assert_eq!(String::from_utf8(copied).unwrap(), serde);
        }
    }
}
