//! `yolah play`: a game in the terminal, for people and computer players.

use anyhow::{bail, Context, Result};
use std::io::{BufRead, IsTerminal, Read, Write};
use yolah::record::GameRecord;
use yolah::{Color, Move, Position, Square};
use yolah_players::{from_spec, Player};

/// The player that answers `hint`.
const HINT_SPEC: &str = "alphabeta:time=500ms";

const HELP: &str = "\
Type a move as from:to, like d5:b7 (a piece slides like a queen; the square
it leaves becomes a hole). Other commands:
  moves   list your legal moves
  undo    take back your last move (and the computer's reply)
  hint    ask the computer for a move
  help    show this text
  quit    stop the game";

enum Seat {
    Human,
    Computer(Box<dyn Player>),
}

impl Seat {
    fn new(spec: &str) -> Result<Seat> {
        if spec == "human" {
            Ok(Seat::Human)
        } else {
            // Every core, unless the spec says threads=.
            let spec = yolah_players::with_default_threads(spec, yolah_players::available_cores());
            Ok(Seat::Computer(from_spec(&spec)?))
        }
    }
}

/// The board with coordinates; ANSI colours and the last move highlighted
/// when `colour` is set.
fn render(pos: &Position, last: Option<Move>, colour: bool) -> String {
    let mut out = String::new();
    let marked =
        |sq: Square| last.is_some_and(|m| !m.is_pass() && (m.from() == sq || m.to() == sq));
    for rank in (0..8).rev() {
        out += &format!("{} ", rank + 1);
        for file in 0..8 {
            let sq = Square::from_coords(file, rank).expect("on the board");
            let (glyph, ansi) = if pos.pieces(Color::Black).contains(sq) {
                ('●', "1;31")
            } else if pos.pieces(Color::White).contains(sq) {
                ('○', "1;36")
            } else if pos.holes().contains(sq) {
                ('■', "2")
            } else {
                ('.', "2")
            };
            if colour {
                let bg = if marked(sq) { ";43" } else { "" };
                out += &format!(" \x1b[{ansi}{bg}m{glyph}\x1b[0m");
            } else {
                out += &format!(" {glyph}");
            }
        }
        out.push('\n');
    }
    out += "   a b c d e f g h\n";
    out += &format!(
        "black ● {}  white ○ {}",
        pos.score(Color::Black),
        pos.score(Color::White)
    );
    if let Some(m) = last {
        out += &format!("   last move {m}");
    }
    out
}

fn result_text(pos: &Position) -> &'static str {
    match (pos.is_game_over(), pos.winner()) {
        (false, _) => "*",
        (true, Some(Color::Black)) => "1-0",
        (true, Some(Color::White)) => "0-1",
        (true, None) => "1/2-1/2",
    }
}

pub fn play_command(
    black: &str,
    white: &str,
    save: Option<&str>,
    start: &Position,
) -> Result<String> {
    let mut seats = [Seat::new(black)?, Seat::new(white)?];
    let colour = std::io::stdout().is_terminal();
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let mut pos = *start;
    let mut history: Vec<Move> = Vec::new();
    let mut redraw = true;
    let mut hint_player: Option<Box<dyn Player>> = None;
    loop {
        if redraw {
            writeln!(out, "\n{}", render(&pos, history.last().copied(), colour))?;
            redraw = false;
        }
        if pos.is_game_over() {
            let (b, w) = (pos.score(Color::Black), pos.score(Color::White));
            let verdict = match pos.winner() {
                Some(c) => format!("{c} wins {b}-{w}"),
                None => format!("draw {b}-{w}"),
            };
            writeln!(out, "game over: {verdict}")?;
            break;
        }
        let side = pos.side_to_move();
        let seat = match side {
            Color::Black => &mut seats[0],
            Color::White => &mut seats[1],
        };
        let player = match seat {
            Seat::Computer(player) => {
                let a = player.analyse(&pos);
                writeln!(out, "{side} ({}) plays {}", player.spec(), a.best_move)?;
                pos.try_play(a.best_move)
                    .with_context(|| format!("{} chose an illegal move", player.spec()))?;
                history.push(a.best_move);
                redraw = true;
                continue;
            }
            Seat::Human => side,
        };
        if !pos.can_move(player) {
            writeln!(out, "{player} has no move and passes")?;
            pos.play(Move::PASS);
            history.push(Move::PASS);
            redraw = true;
            continue;
        }
        write!(out, "{player} to move ({} moves)> ", pos.legal_move_count())?;
        out.flush()?;
        let Some(line) = read_command(&mut input)? else {
            writeln!(out, "\nend of input: stopping the game")?;
            break;
        };
        match line.trim() {
            "" => {}
            "help" | "?" => writeln!(out, "{HELP}")?,
            "quit" | "exit" => break,
            "moves" => {
                let moves: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
                writeln!(out, "{}", moves.join(" "))?;
            }
            "hint" => {
                let hinter = hint_player
                    .get_or_insert_with(|| from_spec(HINT_SPEC).expect("the hint spec is valid"));
                let a = hinter.analyse(&pos);
                writeln!(
                    out,
                    "hint: {} (expected line {})",
                    a.best_move,
                    line_text(&a.pv)
                )?;
            }
            "undo" => {
                if undo_to_human(&mut pos, &mut history, &seats, start) {
                    redraw = true;
                } else {
                    writeln!(out, "nothing to undo")?;
                }
            }
            text => match text.parse::<Move>() {
                Err(e) => writeln!(out, "{e}; type help for help")?,
                Ok(m) => match pos.try_play(m) {
                    Err(e) => writeln!(out, "illegal: {e}")?,
                    Ok(()) => {
                        history.push(m);
                        redraw = true;
                    }
                },
            },
        }
    }
    if let Some(path) = save {
        let mut record = GameRecord::from_moves(&history);
        if *start != Position::START {
            record.start = Some(start.to_text());
        }
        record.metadata.insert("black".into(), black.into());
        record.metadata.insert("white".into(), white.into());
        record
            .metadata
            .insert("result".into(), result_text(&pos).into());
        std::fs::write(path, record.to_json() + "\n")
            .with_context(|| format!("cannot write {path}"))?;
        writeln!(out, "saved the game to {path}")?;
    }
    Ok(String::new())
}

fn line_text(pv: &[Move]) -> String {
    pv.iter().map(Move::to_string).collect::<Vec<_>>().join(" ")
}

/// Takes back moves until a person is to move again, having taken back at
/// least one of that person's moves. False when there is nothing to undo.
fn undo_to_human(
    pos: &mut Position,
    history: &mut Vec<Move>,
    seats: &[Seat; 2],
    start: &Position,
) -> bool {
    let is_human = |p: &Position| matches!(seats[p.side_to_move() as usize], Seat::Human);
    let mut undone = false;
    while let Some(m) = history.pop() {
        pos.undo(m);
        undone = true;
        if is_human(pos) && !m.is_pass() {
            break;
        }
    }
    if !undone {
        return false;
    }
    debug_assert!(history.is_empty() || pos.ply() > start.ply());
    true
}

/// The longest line `play` reads: a command or a move is a few bytes.
const MAX_LINE_BYTES: u64 = 4096;

/// The next line typed, `None` at the end of input. A line longer than
/// [`MAX_LINE_BYTES`] (such as `/dev/zero` as input) ends the game with an
/// error instead of filling memory; bytes that are not UTF-8 are replaced,
/// and then read as a move that does not parse.
fn read_command(input: &mut impl BufRead) -> Result<Option<String>> {
    let mut bytes = Vec::new();
    let n = Read::take(&mut *input, MAX_LINE_BYTES + 1)
        .read_until(b'\n', &mut bytes)
        .context("cannot read the input")?;
    if n == 0 {
        return Ok(None);
    }
    if bytes.len() as u64 > MAX_LINE_BYTES {
        bail!("an input line is longer than {MAX_LINE_BYTES} bytes");
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}
