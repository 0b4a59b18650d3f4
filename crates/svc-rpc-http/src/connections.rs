//! Per-client connection accounting: at most `cap` open connections per client (IPv4 address, or
//! IPv6 /64, as the rate limiter keys clients).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::limiter::{client_key, is_loopback};

/// Open connections by client address.
pub struct ConnectionCounter {
    cap: usize,
    exempt_loopback: bool,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One admitted connection; dropping it frees its place.
pub struct ConnectionSlot {
    ip: IpAddr,
    open: Option<Arc<Mutex<HashMap<IpAddr, usize>>>>,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        if let Some(open) = self.open.take() {
            let mut map = open.lock();
            if let Some(n) = map.get_mut(&self.ip) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&self.ip);
                }
            }
        }
    }
}

impl ConnectionCounter {
    /// `cap` 0 = no cap.
    pub fn new(cap: usize, exempt_loopback: bool) -> Self {
        Self { cap, exempt_loopback, open: Arc::new(Mutex::new(HashMap::new())) }
    }

    /// A slot for a new connection from `ip`, or None when `ip` already has `cap` open.
    pub fn admit(&self, ip: IpAddr) -> Option<ConnectionSlot> {
        if self.cap == 0 || (self.exempt_loopback && is_loopback(ip)) {
            return Some(ConnectionSlot { ip, open: None });
        }
        let ip = client_key(ip);
        let mut map = self.open.lock();
        let n = map.entry(ip).or_insert(0);
        if *n >= self.cap {
            return None;
        }
        *n += 1;
        Some(ConnectionSlot { ip, open: Some(self.open.clone()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_each_address_and_frees_on_drop() {
        let counter = ConnectionCounter::new(2, false);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = counter.admit(a).unwrap();
        let _second = counter.admit(a).unwrap();
        assert!(counter.admit(a).is_none());
        assert!(counter.admit(b).is_some());
        drop(first);
        assert!(counter.admit(a).is_some());
    }

    #[test]
    fn ipv6_clients_share_their_64() {
        let counter = ConnectionCounter::new(1, false);
        let _a = counter.admit("2001:db8:1:2::1".parse().unwrap()).unwrap();
        assert!(counter.admit("2001:db8:1:2::ffff".parse().unwrap()).is_none());
        assert!(counter.admit("2001:db8:1:3::1".parse().unwrap()).is_some());
    }

    #[test]
    fn loopback_is_exempt_only_when_asked() {
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        let exempt = ConnectionCounter::new(1, true);
        let _a = exempt.admit(lo).unwrap();
        assert!(exempt.admit(lo).is_some());
        let strict = ConnectionCounter::new(1, false);
        let _b = strict.admit(lo).unwrap();
        assert!(strict.admit(lo).is_none());
    }
}
