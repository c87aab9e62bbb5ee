//! `magicgen survey`: runs [`magicgen::survey`] and prints a line per
//! square, then the totals next to the classic layout.

use magicgen::magics::Indexing;
use magicgen::survey::{survey, SquareSurvey, WidthReport};
use magicgen::{Slider, Square};
use serde_json::json;
use std::io::Write as _;
use std::time::Instant;

/// Which squares `--squares` names: a filter over (slider, square).
fn parse_squares(text: &str) -> Result<Vec<(Slider, Square)>, String> {
    let every = |s: Slider| Square::all().map(move |q| (s, q)).collect::<Vec<_>>();
    match text {
        "all" => Ok(Slider::ALL.into_iter().flat_map(every).collect()),
        "orthogonal" => Ok(every(Slider::Orthogonal)),
        "diagonal" => Ok(every(Slider::Diagonal)),
        _ => text
            .split(',')
            .map(|item| {
                let item = item.trim();
                let (slider, square) = item.split_once(':').ok_or_else(|| {
                    format!("{item:?} is not slider:square (such as orthogonal:b7)")
                })?;
                let slider = Slider::parse(slider)
                    .ok_or_else(|| format!("{slider:?} is not a slider: orthogonal or diagonal"))?;
                let square = Square::parse(square)
                    .ok_or_else(|| format!("{square:?} is not a square (a1 to h8)"))?;
                Ok((slider, square))
            })
            .collect(),
    }
}

/// Surveys the squares `squares` names at `widths` bits above their masks'
/// and prints the result (a table, or one JSON object).
pub(crate) fn run(
    seed: u64,
    tries: u64,
    widths: &[u32],
    squares: &str,
    threads: usize,
    json: bool,
) -> Result<(), String> {
    let chosen = parse_squares(squares)?;
    let start = Instant::now();
    let found = survey(
        Indexing::Black,
        seed,
        tries,
        widths,
        threads,
        &|slider, square| chosen.contains(&(slider, square)),
        &|done, total| {
            if !json {
                // A closed stderr is no reason to stop.
                let _ = write!(std::io::stderr(), "\rsurvey {done}/{total} squares   ");
            }
        },
    );
    if !json {
        let _ = writeln!(std::io::stderr());
    }
    let seconds = start.elapsed().as_secs_f64();
    let result = if json {
        print_json(seed, tries, &found, seconds)
    } else {
        print_table(seed, tries, widths, &found, seconds)
    };
    match result {
        // `magicgen survey | head` closes the pipe: end quietly.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("cannot write: {e}")),
    }
}

/// Totals over the squares of the best width each: the fewest used slots
/// (a target for a packing), the shortest spans (what blocks laid end to
/// end cost), `2^bits`, and how many squares had no valid magic at any
/// width (counted at `2^bits`).
fn best_over_widths(found: &[SquareSurvey]) -> (u64, u64, u64, usize) {
    let (mut used, mut span, mut classic, mut missing) = (0, 0, 0, 0);
    for s in found {
        let full = 1u64 << s.mask_bits;
        classic += full;
        let least = |f: &dyn Fn(&WidthReport) -> Option<(u32, u64)>| {
            s.widths
                .iter()
                .filter_map(f)
                .map(|(v, _)| u64::from(v))
                .min()
        };
        let fewest = least(&|w| w.fewest_used);
        missing += usize::from(fewest.is_none());
        used += fewest.unwrap_or(full);
        span += least(&|w| w.shortest_span).unwrap_or(full);
    }
    (used, span, classic, missing)
}

fn print_table(
    seed: u64,
    tries: u64,
    widths: &[u32],
    found: &[SquareSurvey],
    seconds: f64,
) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "survey: seed 0x{seed:016x}, {tries} tries per square and width, black magics"
    )?;
    writeln!(
        out,
        "slider     square mask  bits    valid   used magic               span magic"
    )?;
    for s in found {
        for w in &s.widths {
            let show = |x: Option<(u32, u64)>| match x {
                Some((v, m)) => format!("{v:>6} 0x{m:016x}"),
                None => format!("{:>6} {:<18}", "-", "(none valid)"),
            };
            writeln!(
                out,
                "{:<10} {}     {:>4} {:>5} {:>8} {} {}",
                s.slider.name(),
                s.square,
                s.mask_bits,
                w.bits,
                w.valid,
                show(w.fewest_used),
                show(w.shortest_span)
            )?;
        }
    }
    writeln!(out)?;
    let sum = |j: usize, f: &dyn Fn(&WidthReport) -> Option<(u32, u64)>| -> (u64, usize) {
        let missing = found.iter().filter(|s| f(&s.widths[j]).is_none()).count();
        let total = found
            .iter()
            .map(|s| f(&s.widths[j]).map_or(1u64 << s.mask_bits, |(v, _)| u64::from(v)))
            .sum();
        (total, missing)
    };
    let none_valid = |missing: usize| match missing {
        0 => String::new(),
        1 => " (1 square without a valid magic, counted at 2^bits)".to_string(),
        k => format!(" ({k} squares without a valid magic, counted at 2^bits)"),
    };
    for (j, d) in widths.iter().enumerate() {
        let (used, missing) = sum(j, &|w| w.fewest_used);
        let (span, _) = sum(j, &|w| w.shortest_span);
        writeln!(
            out,
            "mask bits + {d}: fewest used {used} in all, shortest spans {span} in all{}",
            none_valid(missing)
        )?;
    }
    let (used, span, classic, missing) = best_over_widths(found);
    writeln!(
        out,
        "best width per square: fewest used {used}, shortest spans {span}, against {classic} for 2^bits{} ({seconds:.1} s)",
        none_valid(missing)
    )
}

fn print_json(seed: u64, tries: u64, found: &[SquareSurvey], seconds: f64) -> std::io::Result<()> {
    let hex =
        |x: Option<(u32, u64)>| x.map(|(v, m)| json!({"slots": v, "magic": format!("0x{m:016x}")}));
    let squares: Vec<_> = found
        .iter()
        .map(|s| {
            json!({
                "slider": s.slider.name(),
                "square": s.square.to_string(),
                "mask_bits": s.mask_bits,
                "widths": s.widths.iter().map(|w| json!({
                    "bits": w.bits,
                    "valid": w.valid,
                    "fewest_used": hex(w.fewest_used),
                    "shortest_span": hex(w.shortest_span),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let (used, span, classic, missing) = best_over_widths(found);
    let v = json!({
        "squares_without_valid_magic": missing,
        "seed": format!("0x{seed:016x}"),
        "tries": tries,
        "squares": squares,
        "fewest_used": used,
        "shortest_spans": span,
        "two_to_the_bits": classic,
        "seconds": seconds,
    });
    writeln!(std::io::stdout().lock(), "{v}")
}
