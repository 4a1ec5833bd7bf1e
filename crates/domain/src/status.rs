//! The life cycles of bookings, verification runs and listings: each status, its name as
//! stored and shown (the one place a status becomes text), and the moves allowed between them.
//! An illegal move is an error, never a silent overwrite.

use std::fmt;
use std::str::FromStr;

/// A move a life cycle does not allow, or a stored name that is no status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatusError {
    #[error("a {kind} cannot go from {from} to {to}")]
    Illegal {
        kind: &'static str,
        from: &'static str,
        to: &'static str,
    },
    #[error("{0:?} is not a status")]
    Unknown(String),
}

/// What every life cycle offers generically, so a store can derive its queries from the table
/// of moves instead of picking status sets by hand.
pub trait LifeCycle: Copy + Eq + 'static {
    /// Every status, in declaration order.
    const ALL: &'static [Self];
    /// The name as stored and shown.
    fn name(self) -> &'static str;
    /// Whether the life cycle allows moving from `self` to `next`.
    fn may_become(self, next: Self) -> bool;

    /// The status a stored name names.
    fn parse(raw: &str) -> Result<Self, StatusError> {
        Self::ALL
            .iter()
            .copied()
            .find(|s| s.name() == raw)
            .ok_or_else(|| StatusError::Unknown(raw.to_owned()))
    }

    /// Every status the life cycle lets move to `next`: the rows an update to `next` may find.
    fn sources_of(next: Self) -> Vec<Self> {
        Self::ALL
            .iter()
            .copied()
            .filter(|s| s.may_become(next))
            .collect()
    }

    /// The statuses some move leads out of: a thing in one is not over yet.
    fn open() -> Vec<Self> {
        Self::ALL
            .iter()
            .copied()
            .filter(|s| Self::ALL.iter().any(|next| s.may_become(*next)))
            .collect()
    }
}

macro_rules! life_cycle {
    (
        $(#[$doc:meta])*
        $name:ident, $kind:literal {
            $($variant:ident => $text:literal),+ $(,)?
        }
        moves { $($from:ident => [$($to:ident),*]),* $(,)? }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name as stored and shown.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// Whether the life cycle allows moving from `self` to `next`.
            pub fn can_become(self, next: $name) -> bool {
                match self {
                    $($name::$from => matches!(next, $($name::$to)|*),)*
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }

            /// `next`, when the life cycle allows the move; otherwise why not.
            pub fn transition(self, next: $name) -> Result<$name, StatusError> {
                if self.can_become(next) {
                    Ok(next)
                } else {
                    Err(StatusError::Illegal {
                        kind: $kind,
                        from: self.as_str(),
                        to: next.as_str(),
                    })
                }
            }

            /// No move leads out of it.
            pub fn is_final(self) -> bool {
                !$name::ALL.iter().any(|next| self.can_become(*next))
            }
        }

        impl LifeCycle for $name {
            const ALL: &'static [$name] = $name::ALL;

            fn name(self) -> &'static str {
                self.as_str()
            }

            fn may_become(self, next: $name) -> bool {
                self.can_become(next)
            }
        }

        impl FromStr for $name {
            type Err = StatusError;

            fn from_str(raw: &str) -> Result<Self, Self::Err> {
                <$name as LifeCycle>::parse(raw)
            }
        }

        /// Serialised as its stored name.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

life_cycle! {
    /// A booking: held while the renter pays, confirmed, in use, then over one way or another.
    BookingStatus, "booking" {
        PendingPayment => "pending_payment",
        Confirmed => "confirmed",
        Active => "active",
        Completed => "completed",
        Cancelled => "cancelled",
        Expired => "expired",
        Interrupting => "interrupting",
        Interrupted => "interrupted",
    }
    moves {
        // Paid; or the hold ran out or the payment failed; or the renter cancelled; or an
        // interruptible one was displaced.
        PendingPayment => [Confirmed, Expired, Cancelled, Interrupted],
        // Its start came (or its whole interval passed between two sweeps); or cancelled; or
        // an interruptible one was displaced (with notice once its start has come).
        Confirmed => [Active, Completed, Cancelled, Interrupting, Interrupted],
        Active => [Completed, Cancelled, Interrupting],
        // Displaced after its start: its access ends when the notice runs out.
        Interrupting => [Interrupted],
    }
}

/// How a booking in a status holds its GPUs (`crate::booking::holds_gpus` is the rule over
/// time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuHold {
    /// For its whole interval.
    Always,
    /// Until its hold expires (a booking awaiting its payment).
    UntilHoldExpires,
    /// Not at all: it is over.
    Never,
}

impl BookingStatus {
    /// How a booking in this status holds its GPUs.
    pub fn gpu_hold(self) -> GpuHold {
        match self {
            // An interrupting booking's interval ends when its notice runs out.
            Self::Confirmed | Self::Active | Self::Interrupting => GpuHold::Always,
            Self::PendingPayment => GpuHold::UntilHoldExpires,
            Self::Completed | Self::Cancelled | Self::Expired | Self::Interrupted => GpuHold::Never,
        }
    }

    /// Whether a booking in this status gives its renter access over its interval: paid
    /// (or made where no payment is taken) and not over; an interrupting one until its
    /// notice runs out (its `ends_at`).
    pub fn gives_access(self) -> bool {
        matches!(self, Self::Confirmed | Self::Active | Self::Interrupting)
    }

    /// Whether a booking in this status may hold its GPUs (for some hold expiry).
    pub fn holds_capacity(self) -> bool {
        self.gpu_hold() != GpuHold::Never
    }
}

life_cycle! {
    /// A verification run: waiting for a worker, measured, then over.
    RunStatus, "verification run" {
        Queued => "queued",
        Running => "running",
        Succeeded => "succeeded",
        Failed => "failed",
        Cancelled => "cancelled",
    }
    moves {
        Queued => [Running, Cancelled],
        // A worker that stops (or loses its lease) gives the run back to the queue.
        Running => [Succeeded, Failed, Cancelled, Queued],
    }
}

life_cycle! {
    /// A listing: searchable and bookable until its provider delists it.
    ListingStatus, "listing" {
        Active => "active",
        Delisted => "delisted",
    }
    moves {
        Active => [Delisted],
    }
}

life_cycle! {
    /// A listing's verification badge: given by a compliant report, renewed by passed spot
    /// checks, lost to a refuting spot check (demoted), to time (expired), or to an edit of
    /// what was measured (unverified again). Stored as `NULL` while unverified.
    BadgeState, "badge" {
        Unverified => "unverified",
        Verified => "verified",
        Expired => "expired",
        Demoted => "demoted",
    }
    moves {
        Unverified => [Verified],
        // A newer compliant report replaces it; a spot check refutes it; it runs out; an edit
        // withdraws it.
        Verified => [Verified, Demoted, Expired, Unverified],
        Expired => [Verified, Unverified],
        Demoted => [Verified, Unverified],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_badge_is_read_as_stored_and_nothing_else() {
        for state in BadgeState::ALL {
            assert_eq!(state.as_str().parse::<BadgeState>(), Ok(*state));
        }
        assert!("gold".parse::<BadgeState>().is_err());
        assert!(BadgeState::Demoted.can_become(BadgeState::Verified));
        assert!(!BadgeState::Demoted.can_become(BadgeState::Expired));
        assert!(!BadgeState::Unverified.can_become(BadgeState::Demoted));
        assert!(!BadgeState::Verified.is_final());
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for status in BookingStatus::ALL {
            assert_eq!(status.as_str().parse::<BookingStatus>().unwrap(), *status);
        }
        for status in RunStatus::ALL {
            assert_eq!(status.to_string().parse::<RunStatus>().unwrap(), *status);
        }
        assert_eq!(
            "paid".parse::<BookingStatus>().unwrap_err(),
            StatusError::Unknown("paid".into())
        );
    }

    #[test]
    fn bookings_move_only_forward() {
        use BookingStatus::*;
        assert_eq!(PendingPayment.transition(Confirmed), Ok(Confirmed));
        assert!(Confirmed.can_become(Cancelled));
        let err = Cancelled.transition(Confirmed).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a booking cannot go from cancelled to confirmed"
        );
        assert!(
            !Expired.can_become(Confirmed),
            "a released hold stays released"
        );
        assert!(
            !Completed.can_become(Cancelled),
            "nothing to cancel once over"
        );
        assert!(!Active.can_become(PendingPayment));
        for status in [Completed, Cancelled, Expired] {
            assert!(status.is_final() && !status.holds_capacity());
        }
        for status in [PendingPayment, Confirmed, Active] {
            assert!(!status.is_final() && status.holds_capacity());
        }
    }

    #[test]
    fn runs_and_listings_follow_their_life_cycles() {
        use RunStatus::*;
        assert!(Queued.can_become(Running) && Running.can_become(Queued));
        assert!(!Succeeded.can_become(Running));
        assert!(
            !Queued.can_become(Succeeded),
            "a run is measured before it succeeds"
        );
        assert!(Failed.is_final() && Cancelled.is_final());
        assert!(ListingStatus::Active.can_become(ListingStatus::Delisted));
        assert!(!ListingStatus::Delisted.can_become(ListingStatus::Active));
    }

    #[test]
    fn the_sets_an_update_may_find_come_from_the_table_of_moves() {
        use BookingStatus::*;
        assert_eq!(
            BookingStatus::sources_of(Cancelled),
            [PendingPayment, Confirmed, Active]
        );
        assert_eq!(BookingStatus::sources_of(Confirmed), [PendingPayment]);
        assert_eq!(BookingStatus::sources_of(Completed), [Confirmed, Active]);
        assert_eq!(BookingStatus::sources_of(Expired), [PendingPayment]);
        assert!(BookingStatus::sources_of(PendingPayment).is_empty());
        assert_eq!(
            RunStatus::sources_of(RunStatus::Cancelled),
            [RunStatus::Queued, RunStatus::Running]
        );
        assert_eq!(
            RunStatus::sources_of(RunStatus::Queued),
            [RunStatus::Running]
        );
        assert_eq!(RunStatus::open(), [RunStatus::Queued, RunStatus::Running]);
        assert_eq!(
            ListingStatus::sources_of(ListingStatus::Delisted),
            [ListingStatus::Active]
        );
        for status in BookingStatus::ALL {
            assert_eq!(
                status.holds_capacity(),
                BookingStatus::open().contains(status),
                "{status}: a booking holds its GPUs exactly while it is not over"
            );
        }
    }
}
