//! Runs a native job on one of the node's lanes (svc_lanes) and settles a JS promise with its result.
//! A lane whose queue is full refuses the job at once: the promise rejects with code "QueueFull".

use std::sync::Arc;

use napi::bindgen_prelude::{Object, ToNapiValue};
use napi::{Env, JsDeferred, Status};
use napi_derive::napi;
use parking_lot::Mutex;
use svc_lanes::{Lane, LaneSize, LaneSizes};

use crate::chain::guarded;

type Resolver<J> = Box<dyn FnOnce(Env) -> napi::Result<J>>;

/// The promise of `job` run on `lane`; `to_js` converts its output on the JS thread.
pub fn on_lane<'env, T, J>(
    env: &'env Env,
    lane: &Lane,
    job: impl FnOnce() -> napi::Result<T> + Send + 'static,
    to_js: impl FnOnce(T) -> napi::Result<J> + Send + 'static,
) -> napi::Result<Object<'env>>
where
    T: Send + 'static,
    J: ToNapiValue + 'static,
{
    let (deferred, promise) = env.create_deferred::<J, Resolver<J>>()?;
    // Shared so that a refused job's promise can still be rejected here.
    let slot: Arc<Mutex<Option<JsDeferred<J, Resolver<J>>>>> = Arc::new(Mutex::new(Some(deferred)));
    let worker_slot = slot.clone();
    let submitted = lane.submit(move || {
        let Some(deferred) = worker_slot.lock().take() else { return };
        match guarded(job) {
            Ok(out) => deferred.resolve(Box::new(move |_env| to_js(out))),
            Err(err) => deferred.reject(err),
        }
    });
    if let Err(busy) = submitted {
        if let Some(deferred) = slot.lock().take() {
            deferred.reject(napi::Error::new(Status::QueueFull, busy.to_string()));
        }
    }
    Ok(promise)
}

#[napi(object)]
pub struct LaneSizeJs {
    pub threads: u32,
    pub max_waiting: u32,
}

#[napi(object)]
pub struct LaneSizesJs {
    pub exec: LaneSizeJs,
    pub logs: LaneSizeJs,
}

/// Sizes the reader lanes; only the first call in a process counts. Returns whether these sizes were applied.
#[napi]
pub fn configure_lanes(sizes: LaneSizesJs) -> bool {
    let defaults = LaneSizes::default();
    // 0 threads keeps the default for this machine's cores.
    let size = |s: &LaneSizeJs, default: LaneSize| LaneSize {
        threads: if s.threads == 0 { default.threads } else { s.threads as usize },
        max_waiting: s.max_waiting as usize,
    };
    svc_lanes::configure(LaneSizes { exec: size(&sizes.exec, defaults.exec), logs: size(&sizes.logs, defaults.logs) })
}

#[napi(object)]
pub struct LaneStatsJs {
    pub name: String,
    pub threads: u32,
    pub max_waiting: u32,
    pub waiting: u32,
    pub running: u32,
    pub accepted: i64,
    pub completed: i64,
    pub refused: i64,
}

/// Counters of every lane, for /metrics.
#[napi]
pub fn lane_stats() -> Vec<LaneStatsJs> {
    let l = svc_lanes::lanes();
    [&l.block, &l.exec, &l.logs, &l.backfill]
        .into_iter()
        .map(|lane| {
            let s = lane.stats();
            LaneStatsJs {
                name: lane.name().to_string(),
                threads: s.threads as u32,
                max_waiting: s.max_waiting as u32,
                waiting: s.waiting as u32,
                running: s.running as u32,
                accepted: s.accepted as i64,
                completed: s.completed as i64,
                refused: s.refused as i64,
            }
        })
        .collect()
}
