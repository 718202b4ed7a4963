//! The checks stream (issue 15 item 4): a run is made, stepped, placed and measured one frame
//! at a time, so what the checks hold does not grow with the run. Measured by counting the
//! bytes this test binary has allocated and not yet freed (a counting global allocator), not
//! by timing.

use ik_gait::checks::{check_run, Context, Measure};
use ik_gait::model::Geometry;
use ik_gait::runner::{Backend, Engine};
use ik_gait::scenarios::{self, Kind, Sample, Scenario};
use ik_gait::RigParams;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

/// The system allocator, counting live bytes and their peak.
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size() as isize, Ordering::Relaxed) + l.size() as isize;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak live bytes above the starting level while `f` runs.
fn peak_during<R>(f: impl FnOnce() -> R) -> (isize, R) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = f();
    (PEAK.load(Ordering::Relaxed) - base, r)
}

fn trot(seconds: f32) -> Scenario {
    Scenario {
        name: "long trot",
        duration: seconds,
        kind: Kind::Steady,
        jitter: 0.0,
        sample: |t| Sample {
            // Speed changes keep the gait switching, so check 6 has switches to hold open.
            speed: 2.5 + 2.0 * (t * 0.7).sin(),
            on_ground: true,
            ..Sample::default()
        },
        table: None,
    }
}

#[test]
fn checks_hold_the_same_memory_for_a_run_ten_times_longer() {
    // One test at a time in this binary: the counters are global.
    let p = RigParams::default();
    let geo = Geometry::doggoyle(&p);
    let engine = Engine::new(&p, Backend::Reference).unwrap();
    let ctx = Context {
        fps: 60.0,
        kind: Kind::Steady,
        hitch: false,
        soak: false,
    };
    let measure = |seconds: f32| {
        let sc = trot(seconds);
        peak_during(|| {
            let mut frames = scenarios::frames(&sc, 60.0, false);
            check_run(&p, &geo, &engine, Some(&engine), &mut frames, ctx).unwrap()
        })
    };
    let (short, (ms, n_short)) = measure(20.0);
    let (long, (ml, n_long)) = measure(200.0);
    assert_eq!((n_short, n_long), (1200, 12000));
    assert!(
        ms.switches > 0 && ml.switches > ms.switches,
        "{} {}",
        ms.switches,
        ml.switches
    );
    // The long run holds no more than the short one (a few hundred bytes of slack for
    // formatting and the like); a trace in memory would add ~0.7 KB a frame, 7.5 MB here.
    assert!(
        long <= short + 512,
        "peak {short} B for 1,200 frames, {long} B for 12,000"
    );
    // The counter sees what holding a run costs: only the inputs, 36 B a frame.
    let (held, v) = peak_during(|| scenarios::inputs(&trot(200.0), 60.0, false));
    assert_eq!(v.len(), 12000);
    assert!(held >= 12000 * 36, "{held}");
    // What `Measure` keeps as history: the previous frame, two per-frame changes and one
    // anchor per leg, at most 7 frames' worth whatever the run's length.
    let mut m = Measure::new(&p, ctx);
    let mut placer = ik_gait::checks::Placer::new(&p, &geo);
    let first = v[0];
    let mut st = engine.start(&p, &first);
    let mut most = 0;
    for i in &v {
        let o = st.step(&p, i).unwrap();
        m.push(&placer.place(*i, o));
        most = most.max(m.retained());
    }
    assert!(most <= 7, "{most}");
}
