//! Per-IP token buckets for the public JSON-RPC (spec: 100 requests per second). A request needs
//! one token to be admitted; a batch then pays for its other items, possibly going into debt, so
//! batches are served whatever their size and the average rate still holds.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// How often buckets that have refilled are forgotten.
const SWEEP_INTERVAL: Duration = Duration::from_secs(10);

#[derive(Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated_at: Instant,
}

/// The answer to "may this client make a request now?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Admitted,
    Refused { retry_after_seconds: u64 },
}

struct Buckets {
    map: HashMap<IpAddr, Bucket>,
    swept_at: Instant,
}

pub struct RateLimiter {
    per_second: f64,
    exempt_loopback: bool,
    buckets: Mutex<Buckets>,
}

/// IPv4 clients by address (IPv4-mapped IPv6 too); IPv6 clients by their /64, the block one
/// subscriber usually holds.
pub(crate) fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

/// True for 127.0.0.0/8, ::1 and their IPv4-mapped forms.
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
    }
}

impl RateLimiter {
    /// `per_second` tokens are added each second, also the burst a client may spend at once;
    /// `exempt_loopback` lets local tools (tests, scripts on the node's host) through unmetered.
    pub fn new(per_second: u32, exempt_loopback: bool) -> Self {
        Self {
            per_second: f64::from(per_second.max(1)),
            exempt_loopback,
            buckets: Mutex::new(Buckets { map: HashMap::new(), swept_at: Instant::now() }),
        }
    }

    /// Takes one token for a request from `ip`, or says how long to wait.
    pub fn admit(&self, ip: IpAddr) -> Admission {
        self.admit_at(ip, Instant::now())
    }

    /// Charges `extra` more tokens to an admitted request (the other items of a batch).
    pub fn charge(&self, ip: IpAddr, extra: usize) {
        self.charge_at(ip, extra, Instant::now())
    }

    pub(crate) fn admit_at(&self, ip: IpAddr, now: Instant) -> Admission {
        if self.exempt(ip) {
            return Admission::Admitted;
        }
        let mut buckets = self.buckets.lock();
        let bucket = self.refill(&mut buckets, client_key(ip), now);
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Admission::Admitted;
        }
        let wait = ((1.0 - bucket.tokens) / self.per_second).ceil().max(1.0);
        Admission::Refused { retry_after_seconds: wait as u64 }
    }

    pub(crate) fn charge_at(&self, ip: IpAddr, extra: usize, now: Instant) {
        if extra == 0 || self.exempt(ip) {
            return;
        }
        let mut buckets = self.buckets.lock();
        self.refill(&mut buckets, client_key(ip), now).tokens -= extra as f64;
    }

    /// Clients currently tracked (full buckets are forgotten).
    pub fn tracked(&self) -> usize {
        self.buckets.lock().map.len()
    }

    fn exempt(&self, ip: IpAddr) -> bool {
        self.exempt_loopback && is_loopback(ip)
    }

    fn refill<'a>(&self, buckets: &'a mut Buckets, key: IpAddr, now: Instant) -> &'a mut Bucket {
        if now.saturating_duration_since(buckets.swept_at) >= SWEEP_INTERVAL {
            // Full buckets carry no information; dropping them keeps the map as small as the set of active clients.
            let per_second = self.per_second;
            buckets.map.retain(|_, b| b.tokens + now.saturating_duration_since(b.updated_at).as_secs_f64() * per_second < per_second);
            buckets.swept_at = now;
        }
        let per_second = self.per_second;
        let bucket = buckets.map.entry(key).or_insert(Bucket { tokens: per_second, updated_at: now });
        let elapsed = now.saturating_duration_since(bucket.updated_at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * per_second).min(per_second);
        bucket.updated_at = now;
        bucket
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_burst_of_the_rate_is_admitted_then_refused_until_refilled() {
        let limiter = RateLimiter::new(3, false);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.admit_at(ip("10.0.0.1"), t0), Admission::Admitted);
        }
        assert_eq!(limiter.admit_at(ip("10.0.0.1"), t0), Admission::Refused { retry_after_seconds: 1 });
        // Another client has its own bucket.
        assert_eq!(limiter.admit_at(ip("10.0.0.2"), t0), Admission::Admitted);
        // A third of a second later one token has come back.
        assert_eq!(limiter.admit_at(ip("10.0.0.1"), t0 + Duration::from_millis(334)), Admission::Admitted);
    }

    #[test]
    fn a_batch_pays_for_its_items_and_the_debt_delays_the_next_request() {
        let limiter = RateLimiter::new(10, false);
        let t0 = Instant::now();
        assert_eq!(limiter.admit_at(ip("10.0.0.1"), t0), Admission::Admitted);
        limiter.charge_at(ip("10.0.0.1"), 29, t0);
        // 10 - 1 - 29 = -20 tokens: 21 tokens short of one, 2.1 s at 10/s, rounded up.
        assert_eq!(limiter.admit_at(ip("10.0.0.1"), t0), Admission::Refused { retry_after_seconds: 3 });
        assert_eq!(limiter.admit_at(ip("10.0.0.1"), t0 + Duration::from_millis(2_100)), Admission::Admitted);
    }

    #[test]
    fn loopback_is_exempt_only_when_configured() {
        let exempt = RateLimiter::new(1, true);
        let metered = RateLimiter::new(1, false);
        let t0 = Instant::now();
        for addr in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            for _ in 0..5 {
                assert_eq!(exempt.admit_at(ip(addr), t0), Admission::Admitted);
            }
        }
        assert_eq!(metered.admit_at(ip("127.0.0.1"), t0), Admission::Admitted);
        assert!(matches!(metered.admit_at(ip("127.0.0.1"), t0), Admission::Refused { .. }));
        assert_eq!(exempt.tracked(), 0);
    }

    #[test]
    fn ipv6_clients_share_their_64_and_mapped_ipv4_is_ipv4() {
        let limiter = RateLimiter::new(1, false);
        let t0 = Instant::now();
        assert_eq!(limiter.admit_at(ip("2001:db8:1:2::1"), t0), Admission::Admitted);
        assert!(matches!(limiter.admit_at(ip("2001:db8:1:2:ffff::9"), t0), Admission::Refused { .. }));
        assert_eq!(limiter.admit_at(ip("2001:db8:1:3::1"), t0), Admission::Admitted);
        assert_eq!(limiter.admit_at(ip("::ffff:10.1.1.1"), t0), Admission::Admitted);
        assert!(matches!(limiter.admit_at(ip("10.1.1.1"), t0), Admission::Refused { .. }));
    }

    #[test]
    fn refilled_buckets_are_forgotten() {
        let limiter = RateLimiter::new(5, false);
        let t0 = Instant::now();
        for i in 0..50 {
            limiter.admit_at(IpAddr::V4([10, 0, 0, i].into()), t0);
        }
        assert_eq!(limiter.tracked(), 50);
        limiter.admit_at(ip("10.9.9.9"), t0 + SWEEP_INTERVAL);
        assert_eq!(limiter.tracked(), 1);
    }
}
