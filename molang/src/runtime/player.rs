//! An entity played over a timeline as an iterator of frames: the frame protocol
//! ([`Driver::sample`], [`Driver::apply`], [`Runtime::step`]) behind one type, for programs
//! that embed the runtime.
//!
//! ```
//! use molang::{load_sources, PlayOptions, Player, Timeline};
//! let pack = load_sources(vec![
//!     ("rp/entity/bee.entity.json".into(), r#"{"format_version": "1.10.0",
//!       "minecraft:client_entity": {"description": {"identifier": "demo:bee",
//!         "animations": {"fly": "animation.bee.fly"}, "scripts": {"animate": ["fly"]}}}}"#.into()),
//!     ("rp/animations/bee.animation.json".into(), r#"{"format_version": "1.8.0",
//!       "animations": {"animation.bee.fly": {"loop": true,
//!         "bones": {"wing": {"rotation": [0, 0, "math.sin(q.anim_time * 360) * 30"]}}}}}"#.into()),
//! ]);
//! let options = PlayOptions { frames: 6, ..PlayOptions::default() };
//! let player = Player::new(&pack, "demo:bee", &Timeline::default(), options).unwrap();
//! let wing = player.bone("wing").unwrap();
//! let angles: Vec<f32> = player.map(|f| f.pose.rot[wing][2]).collect();
//! // 20 frames a second: frame 5 is a quarter turn of the sine.
//! assert!((angles[5] - 30.0).abs() < 1e-3 && angles[0] == 0.0);
//! ```

use super::driver::{frame_time, Driver};
use super::inputs::Timeline;
use super::load::load_from_pack;
use super::play::{Backend, LogLine, Pose, Runtime};
use crate::interp::Platform;
use crate::pack::Pack;
use crate::Error;

/// How a [`Player`] plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayOptions {
    /// Interpreter or native code; both give the same poses bit for bit.
    pub backend: Backend,
    /// Frames per second (`query.delta_time` is its inverse).
    pub fps: f32,
    /// Seed of `math.random` and its kin.
    pub seed: u64,
    /// How many frames the iterator yields.
    pub frames: u64,
    /// Which of the game's CPU families to compute as (see [`Platform`]).
    pub platform: Platform,
}

impl Default for PlayOptions {
    /// The JIT at 20 frames a second (the game's tick rate), seed 0, one second, x86-64.
    fn default() -> Self {
        PlayOptions {
            backend: Backend::Jit,
            fps: 20.0,
            seed: 0,
            frames: 20,
            platform: Platform::X86_64,
        }
    }
}

/// One played frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// 0-based frame number.
    pub index: u64,
    /// Seconds since the start.
    pub time: f32,
    /// Every bone's channels and world positions; bones in [`Player::bones`] order.
    pub pose: Pose,
}

/// A client entity (or attachable) of a pack, ready to play; an [`Iterator`] of [`Frame`]s.
pub struct Player {
    rt: Runtime,
    driver: Driver,
    frame: u64,
    options: PlayOptions,
    diagnostics: Vec<crate::diagnostics::PackDiagnostic>,
    notes: Vec<String>,
}

impl Player {
    /// Loads `identifier` (`pig` means `minecraft:pig`) from `pack` and binds `timeline`
    /// (inputs per time; [`Timeline::default`] gives every engine value at rest). What loading
    /// finds in the pack (a bone the geometry lacks) is in [`Player::diagnostics`], what it
    /// assumes about the inputs in [`Player::notes`]; an entity the game would not load is
    /// the error.
    pub fn new(
        pack: &Pack,
        identifier: &str,
        timeline: &Timeline,
        options: PlayOptions,
    ) -> Result<Player, Error> {
        if !(options.fps.is_finite() && options.fps > 0.0) {
            return Err(Error::new(
                crate::ErrorKind::Config,
                format!("frames per second must be above 0, got {}", options.fps),
            ));
        }
        let mut loaded = load_from_pack(pack, identifier)?;
        loaded.scripts.set_platform(options.platform);
        let diagnostics = std::mem::take(&mut loaded.diagnostics);
        let mut notes = Vec::new();
        let mut rt = Runtime::new(loaded, options.backend, options.fps, options.seed);
        let (driver, driver_notes) = Driver::new(timeline, &mut rt);
        notes.extend(driver_notes.iter().map(ToString::to_string));
        notes.extend(
            rt.unsupplied_queries()
                .into_iter()
                .map(|q| format!("{q} is not in the inputs; it reads 0")),
        );
        Ok(Player {
            rt,
            driver,
            frame: 0,
            options,
            diagnostics,
            notes,
        })
    }

    /// Bone names, in the order of [`Pose`]'s vectors.
    pub fn bones(&self) -> impl Iterator<Item = &str> + '_ {
        self.rt.model.bones.iter().map(|b| b.name.as_str())
    }

    /// Index of a bone in [`Pose`]'s vectors (names compare without case, as the game's).
    pub fn bone(&self, name: &str) -> Option<usize> {
        self.bones().position(|b| b.eq_ignore_ascii_case(name))
    }

    /// What loading found in the pack (the checker's diagnostics of the entity's Molang, what
    /// the runtime skips), each with its code and place: print them with
    /// [`crate::diagnostics::render_pack_report`] and the pack, as `molang check` does.
    pub fn diagnostics(&self) -> &[crate::diagnostics::PackDiagnostic] {
        &self.diagnostics
    }

    /// What playing assumes about the inputs: queries they do not give (read 0), engine
    /// variables held at rest, input columns the entity never reads.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Content-log lines since the last call (aborted expressions, missing animations).
    pub fn take_log(&mut self) -> Vec<LogLine> {
        self.rt.take_log()
    }

    /// The runtime underneath, for variables and render choices.
    pub fn runtime(&self) -> &Runtime {
        &self.rt
    }
}

impl Iterator for Player {
    type Item = Frame;

    fn next(&mut self) -> Option<Frame> {
        if self.frame >= self.options.frames {
            return None;
        }
        let index = self.frame;
        let time = frame_time(index, self.options.fps);
        let pose = (self.driver)
            .step(&mut self.rt, time, 1.0 / self.options.fps)
            .clone();
        self.frame += 1;
        Some(Frame { index, time, pose })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.options.frames - self.frame).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}
