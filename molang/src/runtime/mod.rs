//! Headless entity runtime: a client entity's scripts, animations and controllers run frame
//! by frame from an input timeline, giving every bone's pose and, by forward kinematics over
//! the geometry, world positions of pivots and locators.
//!
//! Pipeline: pack JSON → [`load`] (every Molang string: source → AST → checked IR, compiled
//! once against the entity's shared name table in [`crate::entity::EntityScripts`]) →
//! [`play::Runtime::step`] per frame (interpreter or JIT, same IR) → [`fk`] → trace
//! ([`trace`]). [`Driver`] binds an input timeline to a runtime (engine variables at rest,
//! distances integrated) the same way for `molang run`, `molang test`, `bench` and `fuzz`.
//!
//! Semantics decisions where the game's behaviour is not pinned down (spec §12 and below);
//! each is a choice, marked as such:
//! - Channels add per bone, channel and axis, times the weight (condition × `blend_weight` ×
//!   controller fade). `this` is the value accumulated so far for that axis (0 for rotation
//!   and position, 1 for scale). Scale multiplies, blended from 1:
//!   `s *= 1 + (v − 1)·w` (the spec says channels add; adding scales would make two
//!   animations of scale 1 give 2, so we multiply — uncertain).
//! - `anim_time` starts at 0 on the first playing frame; the default update adds
//!   `delta_time` after that. A custom `anim_time_update` is evaluated every playing frame,
//!   the first included (with `q.anim_time` = the previous value, 0 at the start).
//! - `loop: false` stops contributing once `anim_time` passes `animation_length`; an
//!   animation with no keyframes and no length never ends. `hold_on_last_frame` clamps.
//!   A looping animation wraps by `anim_time mod length`.
//! - An `animate` condition or state blend value of exactly 0 stops an animation (it
//!   restarts from 0 when non-zero again); NaN is true, as everywhere in Molang. A
//!   controller whose condition is 0 keeps its state and does nothing that frame.
//! - Keyframes: `pre` arriving, `post` leaving; before the first key its `pre`, after the
//!   last its `post`. The segment a→b is `step` when a is step (hold a), Catmull-Rom when
//!   a or b is catmullrom (uniform Catmull-Rom, neighbours clamped at the ends), else
//!   linear. This is Blockbench's rule; the game's is not documented. All-step and
//!   all-catmullrom channels behave the same under either rule.
//! - Controllers: on the first frame the initial state is entered (`on_entry`), then its
//!   transitions are evaluated in the same frame, in order. The first non-zero one switches
//!   (`on_exit`, `on_entry`, the new state's animations restart), at most one switch per
//!   frame, then the current state's `variables` and animations run. Transitions come
//!   before the state's animations (spec §12.19: unconfirmed).
//! - `blend_transition` is read from the state being left: seconds give a linear fade of
//!   the old state from 1 to 0 (the new state gets 1 − that); a `{time: weight}` curve gives
//!   the old state's weight directly.
//! - Controller `variables` with `remap_curve`: piecewise linear, clamped outside the curve.
//! - A controller that would play itself (directly or through other controllers) is cut at
//!   the entry that closes the circle: that entry plays nothing and is logged once (the game
//!   does not nest forever; where it stops is not documented: choice). Each controller is
//!   compiled once; its occurrences in the play tree are nodes with their own state, at most
//!   16 levels deep and [`load::MAX_PLAY_NODES`] in all. `molang check` warns W0808 there.
//! - One iteration budget per entity and frame ([`play::FRAME_BUDGET`], all expressions
//!   together, `initialize` and `pre_animation` included); once spent, later loops of the
//!   frame end at their first iteration, and the content log names the expression that ran it
//!   out and the one that spent most, with file, line and column (choice: the game documents
//!   no such budget). Both back ends count iterations alike.
//! - Runtime aborts and missing animations are logged once per run with the first frame
//!   they happened in; the game would repeat them every frame.
//! - `query.time_stamp` = floor(t × 20) (ticks); `query.is_alive` = 1; `query.delta_time` =
//!   1/fps; `query.life_time` = t. The inputs override any of them.
//! - The entity's play list: first the 1.8.0 `description.animation_controllers` entries
//!   (`[{"move": "controller.animation.humanoid.move"}]`), in order, then `scripts.animate`
//!   (the game plays both; the order between them is a choice: the legacy list first, as it
//!   comes first in Mojang's files). A legacy entry naming a controller that
//!   `scripts.animate` also plays is skipped: one instance per controller (Mojang's zombie
//!   lists its controllers in both; played twice, its legs would swing twice as far, which
//!   the game does not show; choice). The legacy list is its own namespace: its entries name
//!   controllers directly, and a name inside a controller state (or in `animate`) resolves
//!   in `description.animations` first, then in the legacy list. So `"move":
//!   "animation.humanoid.move"` next to `{"move": "controller.animation.humanoid.move"}`
//!   plays the animation inside the controller instead of the controller inside itself.
//! - Of several client entity definitions with one identifier (Mojang's `*.v1.0.entity.json`
//!   next to the current file) the highest `description.min_engine_version` plays; of equal
//!   ones the last loaded (a later pack layer). `pig` means `minecraft:pig`.
//! - Engine variables ([`crate::engine_vars`]) the entity reads and no input column gives
//!   are set before every frame to their rest value (the game sets them every frame), and
//!   are known to the checker of the entity's scripts as set (no E0601 for the shulker).
//! - `scripts.scale` × `scaleX/Y/Z` is evaluated after the animations each frame and scales
//!   world positions and locators about the entity origin (`Pose::entity_scale`); bone
//!   channels stay unscaled, as the game scales the model matrix.
//! - Attachables run like client entities. The game shares an attachable's variables with
//!   its holder (the bow's `v.charge_amount` is read by the holder's humanoid animations);
//!   run alone, the attachable keeps its variables and the holder's part comes from input
//!   columns; `parent_setup` runs first in each frame, on the attachable.
//!   `context.is_first_person` is 0 (third person) for every entity.
//! - Render controllers: see [`render`] for the rules.
//! - Queries with arguments: an input column `q.name(args)` answers reads whose arguments
//!   equal its own, all of them, in order and in number. Numbers compare as Molang's `==`:
//!   `-0` matches `0`, a NaN argument matches no column (columns cannot be NaN). Strings
//!   compare by the game's hash of their bytes, so case-sensitively (spec §1.2), even though
//!   names such as `'minecraft:has_nectar'` may be case-insensitive in the game. A read no
//!   column matches gets the plain column `q.name` (or the runtime's own value), else 0 with
//!   one content-log note per argument list (at most 8 per query). The game would compute
//!   these from the world; the columns stand in for it.

pub mod driver;
pub mod fk;
pub mod inputs;
pub mod instances;
pub mod load;
pub mod model;
pub mod platforms;
pub mod play;
pub mod player;
pub mod render;
pub mod trace;

pub use driver::{frame_time, Driver};
pub use load::{load_entity, load_from_pack, Loaded};
pub use play::{ArgInput, Backend, LogKind, LogLine, Pose, Runtime};
pub use player::{Frame, PlayOptions, Player};

#[cfg(test)]
mod tests;
