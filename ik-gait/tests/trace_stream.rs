//! `doggoyle run` streams its trace (one frame stepped, put through FK and written at a time),
//! and the streamed file equals the trace built from a whole in-memory run.

use ik_gait::checks::Trace;
use ik_gait::model::Geometry;
use ik_gait::runner::{run, Backend};
use ik_gait::scenarios::{find, inputs};
use ik_gait::trace::{csv, write_csv};
use ik_gait::RigParams;

#[test]
fn streamed_trace_equals_the_whole_run() {
    let dir = std::env::temp_dir().join(format!("doggoyle-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = RigParams::default();
    let sc = find("walk-stop-sit-stand-walk").unwrap();
    for backend in [Backend::Reference, Backend::Jit] {
        let out = dir.join(format!("{}.csv", backend.name()));
        let n = write_csv(&p, &sc, 30.0, backend, &out).unwrap();
        assert_eq!(n, 360);
        let inp = inputs(&sc, 30.0, false);
        let whole = run(&p, backend, &inp).unwrap();
        let tr = Trace::new(&p, &Geometry::doggoyle(&p), inp, whole);
        let streamed = std::fs::read_to_string(&out).unwrap();
        assert_eq!(streamed, csv(&p, &tr, 30.0), "{}", backend.name());
        assert_eq!(streamed.lines().count(), 361);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
