//! `molang render`: pictures of an entity posed by the runtime (see `molang::picture`):
//! a PNG for one frame, an animated GIF for a range, or a PNG contact sheet. Writes only the
//! file `--out` names: never through a symbolic link, never over a file without `--force`,
//! never creating folders.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use molang::picture::{self, Camera, Picture, Settings, Style};
use molang::runtime::inputs::{self, Timeline};
use molang::runtime::{Backend, PlayOptions};
use molang::text::terminal_safe;

use crate::args::{EntityArgs, PackArgs};
use crate::output;

/// Largest picture side `--size` takes.
const MAX_SIZE: u32 = 2048;
/// Frames one command may draw.
const MAX_DRAWN: u64 = 1000;
/// Last frame number (the runtime plays every frame before the range too).
const MAX_FRAME: u64 = 100_000;

/// Arguments of `molang render`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: EntityArgs,
    /// CSV input timeline, as for `molang run`.
    #[arg(long)]
    pub inputs: Option<PathBuf>,
    /// Frames per second.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    pub fps: f32,
    /// One frame `N`, or frames `A..B` (A included, B not: `0..80` is 4 s at 20 fps).
    #[arg(long, default_value = "0")]
    pub frames: String,
    #[arg(long, value_enum, default_value = "three-quarter")]
    pub camera: CameraArg,
    /// Degrees about the vertical axis (0: in front, 90: at the mob's right side);
    /// replaces the camera's own.
    #[arg(long, allow_negative_numbers = true)]
    pub yaw: Option<f64>,
    /// Degrees above the horizon (90: from straight above); replaces the camera's own.
    #[arg(long, allow_negative_numbers = true)]
    pub pitch: Option<f64>,
    /// Picture side in pixels (at most 2048).
    #[arg(long, default_value_t = 256)]
    pub size: u32,
    /// Background colour `#rrggbb`.
    #[arg(long, default_value = "#2b2f36")]
    pub background: String,
    /// Draw faces unshaded (texels as they are).
    #[arg(long)]
    pub flat: bool,
    /// For a range: one PNG with the frames in a grid instead of an animated GIF.
    #[arg(long)]
    pub sheet: bool,
    /// The file to write: `.png` for one frame or a sheet, `.gif` for a range.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace `--out` if it exists.
    #[arg(long)]
    pub force: bool,
    #[arg(long, value_enum, default_value = "jit")]
    pub backend: BackendArg,
    /// Seed of math.random.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// No notes on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraArg {
    Front,
    Side,
    Top,
    ThreeQuarter,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendArg {
    Jit,
    Interp,
}

/// Runs `molang render`; `layers`: the positional packs and `--pack` values in order.
pub fn main(mut args: Args, layers: Vec<PathBuf>) -> ExitCode {
    args.target.layers = PackArgs {
        packs: layers,
        pack_layers: Vec::new(),
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {}", terminal_safe(&msg));
            ExitCode::from(2)
        }
    }
}

/// `N` or `A..B` as the half-open range of frames to draw.
fn frame_range(text: &str) -> Result<(u64, u64), String> {
    let num = |s: &str| {
        s.trim().parse::<u64>().map_err(|_| {
            format!("--frames takes a frame number `N` or a range `A..B`, got `{text}`")
        })
    };
    let (a, b) = match text.split_once("..") {
        Some((a, b)) => (num(a)?, num(b)?),
        None => {
            let n = num(text)?;
            (n, n.saturating_add(1))
        }
    };
    if a >= b {
        return Err(format!(
            "--frames {text} draws nothing: the end is not after the start (`A..B` draws A to B−1)"
        ));
    }
    if b > MAX_FRAME {
        return Err(format!(
            "--frames {text} ends past frame {MAX_FRAME}, the last this command plays"
        ));
    }
    if b - a > MAX_DRAWN {
        return Err(format!(
            "--frames {text} is {} frames; at most {MAX_DRAWN} are drawn at once",
            b - a
        ));
    }
    Ok((a, b))
}

fn colour(text: &str) -> Result<[u8; 3], String> {
    let hex = text.strip_prefix('#').unwrap_or(text);
    let bad = || format!("--background takes a colour `#rrggbb`, got `{text}`");
    if hex.len() != 6 || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
    Ok([byte(0)?, byte(2)?, byte(4)?])
}

fn run(args: &Args) -> Result<(), String> {
    let (first, end) = frame_range(&args.frames)?;
    if !(args.fps.is_finite() && args.fps > 0.0 && args.fps <= 1000.0) {
        return Err(format!(
            "--fps must be above 0 and at most 1000, got {}",
            args.fps
        ));
    }
    if !(8..=MAX_SIZE).contains(&args.size) {
        return Err(format!(
            "--size must be from 8 to {MAX_SIZE} pixels, got {}",
            args.size
        ));
    }
    let background = colour(&args.background)?;
    let mut camera = Camera::named(match args.camera {
        CameraArg::Front => "front",
        CameraArg::Side => "side",
        CameraArg::Top => "top",
        CameraArg::ThreeQuarter => "three-quarter",
    })
    .expect("every camera argument names a camera");
    for (value, slot, name) in [
        (args.yaw, &mut camera.yaw, "--yaw"),
        (args.pitch, &mut camera.pitch, "--pitch"),
    ] {
        if let Some(v) = value {
            if !(v.is_finite() && v.abs() <= 360.0) {
                return Err(format!("{name} takes degrees from -360 to 360, got {v}"));
            }
            *slot = v;
        }
    }
    let sheet = args.sheet && end - first > 1;
    let want = if end - first == 1 || sheet {
        "png"
    } else {
        "gif"
    };
    let ext = args
        .out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if ext.as_deref() != Some(want) {
        let what = match want {
            "gif" => "a range of frames is an animated GIF (or pass --sheet for a PNG)",
            _ if sheet => "a contact sheet is a PNG",
            _ => "one frame is a PNG",
        };
        return Err(format!(
            "{}: {what}; name the file `.{want}`",
            args.out.display()
        ));
    }
    check_out(&args.out, &args.target.layers.packs, args.force)?;
    let timeline = match &args.inputs {
        None => Timeline::default(),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            inputs::parse(&text, &p.display().to_string()).map_err(|e| e.to_string())?
        }
    };
    if args.target.layers.packs.is_empty() {
        return Err("name at least one resource pack folder".into());
    }
    let pack = molang::pack::load_entity(&args.target.layers.packs, &args.target.entity);
    let settings = Settings {
        play: PlayOptions {
            backend: match args.backend {
                BackendArg::Jit => Backend::Jit,
                BackendArg::Interp => Backend::Interp,
            },
            fps: args.fps,
            seed: args.seed,
            frames: end,
            ..PlayOptions::default()
        },
        first,
        camera,
        size: args.size,
        style: Style {
            background,
            shade: !args.flat,
            ..Style::default()
        },
    };
    let rendered = picture::render(&pack, &args.target.entity, &timeline, &settings)
        .map_err(|e| e.to_string())?;
    if !args.quiet {
        for n in &rendered.notes {
            eprintln!("note: {}", terminal_safe(n));
        }
    }
    let bytes = if want == "gif" {
        gif(&rendered.pictures, args.fps)?
    } else if sheet {
        contact_sheet(&rendered.pictures, background)?
    } else {
        png_bytes(&rendered.pictures[0])?
    };
    write_new(&args.out, &args.target.layers.packs, &bytes, args.force)
}

/// Where `--out` may be written: a new file, or with `--force` an existing regular one;
/// never through a symbolic link, never inside a pack being drawn.
fn out_rules(packs: &[PathBuf], force: bool) -> output::Rules<'_> {
    output::Rules {
        replace: force,
        packs,
        within: None,
        devices: false,
    }
}

/// `--out`'s refusal in words.
fn out_error(path: &Path, refused: output::Refused) -> String {
    match refused {
        output::Refused::Exists => format!(
            "{}: already exists; pass --force to overwrite it",
            path.display()
        ),
        other => format!("{}: {other}", path.display()),
    }
}

/// Refuses before any work what [`write_new`] would refuse after it.
fn check_out(path: &Path, packs: &[PathBuf], force: bool) -> Result<(), String> {
    output::check(path, &out_rules(packs, force)).map_err(|r| out_error(path, r))
}

/// Writes `bytes` to `path` (a new file, or with `force` an existing regular file).
fn write_new(path: &Path, packs: &[PathBuf], bytes: &[u8], force: bool) -> Result<(), String> {
    output::write(path, bytes, &out_rules(packs, force)).map_err(|r| out_error(path, r))
}

fn png_bytes(p: &Picture) -> Result<Vec<u8>, String> {
    picture::png_bytes(p.size, p.size, &p.rgba)
}

fn sheet_png(img: &image::RgbaImage) -> Result<Vec<u8>, String> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| format!("encoding the PNG: {e}"))?;
    Ok(out.into_inner())
}

/// The frames in a grid, left to right, top to bottom; cells past the last frame are background.
fn contact_sheet(pictures: &[Picture], background: [u8; 3]) -> Result<Vec<u8>, String> {
    let n = pictures.len() as u32;
    let side = pictures.first().map_or(0, |p| p.size);
    let cols = (1..=n).find(|c| c * c >= n).unwrap_or(1);
    let rows = n.div_ceil(cols);
    if cols as u64 * side as u64 > 8192 || rows as u64 * side as u64 > 8192 {
        return Err(format!(
            "a sheet of {n} frames of {side} pixels is over 8192 pixels a side; lower --size or draw fewer frames"
        ));
    }
    let [r, g, b] = background;
    let mut sheet =
        image::RgbaImage::from_pixel(cols * side, rows * side, image::Rgba([r, g, b, 255]));
    for (i, p) in pictures.iter().enumerate() {
        let (cx, cy) = ((i as u32 % cols) * side, (i as u32 / cols) * side);
        for y in 0..side {
            for x in 0..side {
                sheet.put_pixel(cx + x, cy + y, image::Rgba(p.pixel(x, y)));
            }
        }
    }
    sheet_png(&sheet)
}

fn gif(pictures: &[Picture], fps: f32) -> Result<Vec<u8>, String> {
    use image::codecs::gif::{GifEncoder, Repeat};
    let mut out = Vec::new();
    {
        // Speed 10: the encoder's default quantiser speed, deterministic.
        let mut enc = GifEncoder::new_with_speed(&mut out, 10);
        enc.set_repeat(Repeat::Infinite)
            .map_err(|e| format!("encoding the GIF: {e}"))?;
        // GIF delays are in hundredths of a second.
        let delay = image::Delay::from_numer_denom_ms(1000, fps.round().max(1.0) as u32);
        for p in pictures {
            let img = image::RgbaImage::from_raw(p.size, p.size, p.rgba.clone())
                .ok_or("internal: picture buffer of the wrong size")?;
            enc.encode_frame(image::Frame::from_parts(img, 0, 0, delay))
                .map_err(|e| format!("encoding the GIF: {e}"))?;
        }
    }
    Ok(out)
}
