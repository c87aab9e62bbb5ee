//! `yolah play`: a game in the terminal, for people and computer players.

use crate::args::StartArgs;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use std::io::{BufRead, IsTerminal, Read, Write};
use yolah::record::GameRecord;
use yolah::{Color, Move, Position, Square};
use yolah_players::{from_spec, from_spec_with_threads, Player, Search, Stop};

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
            let cores = yolah_players::available_cores();
            let mut player = from_spec_with_threads(spec, cores)?;
            // An engine that cannot start stops here, saying why.
            player.start()?;
            Ok(Seat::Computer(player))
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

/// What `yolah play` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Play in the terminal against a computer player, or watch two play";

/// `yolah play`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct PlayArgs {
    /// Black: a player spec such as alphabeta:time=1s, or human.
    #[arg(long, default_value = "human")]
    black: String,
    /// White: a player spec, or human.
    #[arg(long, default_value = "alphabeta:time=1s")]
    white: String,
    /// Write the game as a JSON record (readable by `yolah replay`).
    #[arg(long)]
    save: Option<String>,
    #[command(flatten)]
    start: StartArgs,
}

impl PlayArgs {
    /// Plays the game in the terminal (all output goes straight there).
    pub fn run(self) -> Result<String> {
        let start = self.start.position()?;
        // An error names the option it came from, since both may hold specs.
        let seats = [
            Seat::new(&self.black).context("--black")?,
            Seat::new(&self.white).context("--white")?,
        ];
        // The file is opened before the first move, so that a path that
        // cannot be written is said now, not after the game; it is emptied
        // only when the game is written, so a game that fails keeps what the
        // file held.
        let save = match &self.save {
            Some(path) => Some((
                path,
                std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(path)
                    .with_context(|| format!("cannot write {path}"))?,
            )),
            None => None,
        };
        let mut game = Game {
            seats,
            colour: std::io::stdout().is_terminal(),
            out: std::io::stdout().lock(),
            start,
            pos: start,
            history: Vec::new(),
            hint_player: None,
        };
        let mut input = std::io::stdin().lock();
        let mut redraw = true;
        loop {
            if redraw {
                game.draw()?;
            }
            redraw = match game.turn(&mut input)? {
                Turn::Moved => true,
                Turn::Stay => false,
                Turn::End => break,
            };
        }
        if let Some((path, file)) = save {
            game.save(path, file, &self.black, &self.white)?;
        }
        Ok(String::new())
    }
}

/// What a turn did.
enum Turn {
    /// The position changed: draw it again.
    Moved,
    /// Nothing changed (a command, a refused move).
    Stay,
    /// The game is over or the player stopped it.
    End,
}

/// A game in the terminal: the seats, the position and its history.
struct Game<'a> {
    seats: [Seat; 2],
    /// Whether to draw with ANSI colours.
    colour: bool,
    out: std::io::StdoutLock<'a>,
    start: Position,
    pos: Position,
    history: Vec<Move>,
    /// The player that answers `hint`, made at the first hint.
    hint_player: Option<Box<dyn Player>>,
}

impl Game<'_> {
    fn draw(&mut self) -> Result<()> {
        let board = render(&self.pos, self.history.last().copied(), self.colour);
        writeln!(self.out, "\n{board}")?;
        Ok(())
    }

    fn play(&mut self, m: Move) -> Turn {
        self.pos.play(m);
        self.history.push(m);
        Turn::Moved
    }

    /// One turn: the end of the game, a computer's move, a pass, or one
    /// line typed by a person.
    fn turn(&mut self, input: &mut impl BufRead) -> Result<Turn> {
        let pos = self.pos;
        if pos.is_game_over() {
            let (b, w) = (pos.score(Color::Black), pos.score(Color::White));
            let verdict = match pos.winner() {
                Some(c) => format!("{c} wins {b}-{w}"),
                None => format!("draw {b}-{w}"),
            };
            writeln!(self.out, "game over: {verdict}")?;
            return Ok(Turn::End);
        }
        let side = pos.side_to_move();
        if let Seat::Computer(player) = &mut self.seats[side as usize] {
            // A failing engine stops the game with its reason, as a match
            // would forfeit it, rather than have a move played for it.
            let a = player
                .try_search(&pos, Search::new(&Stop::new()))
                .map_err(|f| anyhow!("the game stops: {side} ({}) forfeits: {f}", player.spec()))?;
            writeln!(self.out, "{side} ({}) plays {}", player.spec(), a.best_move)?;
            pos.check_move(a.best_move)
                .with_context(|| format!("{} chose an illegal move", player.spec()))?;
            return Ok(self.play(a.best_move));
        }
        if !pos.can_move(side) {
            writeln!(self.out, "{side} has no move and passes")?;
            return Ok(self.play(Move::PASS));
        }
        write!(
            self.out,
            "{side} to move ({} moves)> ",
            pos.legal_move_count()
        )?;
        self.out.flush()?;
        let Some(line) = read_command(input)? else {
            writeln!(self.out, "\nend of input: stopping the game")?;
            return Ok(Turn::End);
        };
        self.command(line.trim())
    }

    /// What a person typed: a command or a move.
    fn command(&mut self, text: &str) -> Result<Turn> {
        match text {
            "" => {}
            "help" | "?" => writeln!(self.out, "{HELP}")?,
            "quit" | "exit" => return Ok(Turn::End),
            "moves" => {
                let moves: Vec<String> =
                    self.pos.legal_moves().iter().map(Move::to_string).collect();
                writeln!(self.out, "{}", moves.join(" "))?;
            }
            "hint" => {
                let hinter = self.hint_player.get_or_insert_with(|| {
                    let mut hinter = from_spec(HINT_SPEC).expect("the hint spec is valid");
                    // Its table is faulted in before its clock runs, so that
                    // the first hint gets its whole half second.
                    hinter.start().expect("an alpha-beta player always starts");
                    hinter
                });
                let a = hinter.analyse(&self.pos);
                writeln!(
                    self.out,
                    "hint: {} (expected line {})",
                    a.best_move,
                    line_text(&a.pv)
                )?;
            }
            "undo" => {
                if undo_to_human(&mut self.pos, &mut self.history, &self.seats, &self.start) {
                    return Ok(Turn::Moved);
                }
                writeln!(self.out, "nothing to undo")?;
            }
            text => match text.parse::<Move>() {
                Err(e) => writeln!(self.out, "{e}; type help for help")?,
                Ok(m) => match self.pos.check_move(m) {
                    Err(e) => writeln!(self.out, "{text:?} is illegal: {e}")?,
                    Ok(()) => return Ok(self.play(m)),
                },
            },
        }
        Ok(Turn::Stay)
    }

    /// Writes the game as a JSON record to `file`, opened at `path`.
    fn save(
        &mut self,
        path: &str,
        mut file: std::fs::File,
        black: &str,
        white: &str,
    ) -> Result<()> {
        let mut record = GameRecord::from_moves(&self.history);
        if self.start != Position::START {
            record.start = Some(self.start.to_text());
        }
        record.metadata.insert("black".into(), black.into());
        record.metadata.insert("white".into(), white.into());
        record
            .metadata
            .insert("result".into(), result_text(&self.pos).into());
        file.set_len(0)
            .and_then(|()| file.write_all((record.to_json() + "\n").as_bytes()))
            .with_context(|| format!("cannot write {path}"))?;
        writeln!(self.out, "saved the game to {path}")?;
        Ok(())
    }
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
