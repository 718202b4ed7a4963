//! `doggoyle run` streams its trace (one frame stepped, put through FK and written at a time),
//! and the streamed text equals the trace built from a whole in-memory run.

use ik_gait::checks::Trace;
use ik_gait::model::Geometry;
use ik_gait::runner::{run, Backend, Engine};
use ik_gait::scenarios::{find, inputs};
use ik_gait::trace::{csv, write_csv};
use ik_gait::RigParams;

#[test]
fn streamed_trace_equals_the_whole_run() {
    let p = RigParams::default();
    let sc = find("walk-stop-sit-stand-walk").unwrap();
    for backend in [Backend::Reference, Backend::Jit] {
        let mut out = Vec::new();
        let engine = Engine::new(&p, backend).unwrap();
        let n = write_csv(&p, &engine, &sc, 30.0, &mut out).unwrap();
        assert_eq!(n, 360);
        let inp = inputs(&sc, 30.0, false);
        let whole = run(&p, backend, &inp).unwrap();
        let tr = Trace::new(&p, &Geometry::doggoyle(&p), inp, whole);
        let streamed = String::from_utf8(out).unwrap();
        assert_eq!(streamed, csv(&p, &tr, 30.0), "{}", backend.name());
        assert_eq!(streamed.lines().count(), 361);
    }
}

/// A writer that refuses every write, as a full disk does.
struct Full;

impl std::io::Write for Full {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("no space left"))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A write the caller's writer refuses is an `Io` error (the front end puts its path first).
#[test]
fn a_failed_write_is_an_io_error() {
    let p = RigParams::default();
    let sc = find("trot-2.5").unwrap();
    let engine = Engine::new(&p, Backend::Reference).unwrap();
    let e = write_csv(&p, &engine, &sc, 20.0, &mut Full).unwrap_err();
    assert_eq!(e.kind(), ik_gait::ErrorKind::Io);
}
