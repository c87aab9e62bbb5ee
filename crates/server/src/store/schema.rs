//! The database's tables, and the steps that bring an older file up to
//! date (`PRAGMA user_version` counts the steps taken).

use rusqlite::Connection;

/// The tables of the first servers, created if missing: a file from before
/// the versions starts here too.
const BASE: &str = "
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    black    TEXT NOT NULL,
    white    TEXT NOT NULL,
    owner    TEXT NOT NULL,
    created  INTEGER NOT NULL,
    finished INTEGER,
    result   TEXT
);
CREATE TABLE IF NOT EXISTS keys (
    hash BLOB PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id),
    role TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    game INTEGER NOT NULL REFERENCES games(id),
    ply  INTEGER NOT NULL,
    mv   INTEGER NOT NULL,
    PRIMARY KEY (game, ply)
);
CREATE INDEX IF NOT EXISTS games_finished ON games(finished) WHERE finished IS NOT NULL;
";

/// Each step, in order; step `i` takes the file from version `i` to `i + 1`.
const STEPS: &[&str] = &[
    // 1: the count of plies kept with the game (the archive lists without
    // counting moves); why a game ended; the players' names; the time
    // control, and each move's clock; games by owner and time, for the
    // per-address quota; the server's own secrets.
    "
    ALTER TABLE games ADD COLUMN plies INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET plies = (SELECT COUNT(*) FROM moves m WHERE m.game = games.id);
    ALTER TABLE games ADD COLUMN reason TEXT;
    ALTER TABLE games ADD COLUMN black_name TEXT;
    ALTER TABLE games ADD COLUMN white_name TEXT;
    ALTER TABLE games ADD COLUMN base_ms INTEGER;
    ALTER TABLE games ADD COLUMN increment_ms INTEGER;
    ALTER TABLE moves ADD COLUMN clock_ms INTEGER;
    CREATE INDEX games_owner_created ON games(owner, created);
    CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
    ",
    // 2: who sat in each seat (the id in their name cookie), and the
    // people's Glicko-2 ratings.
    "
    ALTER TABLE games ADD COLUMN black_player TEXT;
    ALTER TABLE games ADD COLUMN white_player TEXT;
    CREATE TABLE players (
        id         TEXT PRIMARY KEY,
        rating     REAL NOT NULL,
        deviation  REAL NOT NULL,
        volatility REAL NOT NULL,
        games      INTEGER NOT NULL
    );
    ",
];

/// Sets the connection up (write-ahead log, foreign keys) and brings the
/// file's tables up to date.
pub fn migrate(db: &mut Connection) -> rusqlite::Result<()> {
    db.execute_batch(
        "PRAGMA journal_mode = WAL;
         PRAGMA synchronous = NORMAL;
         PRAGMA foreign_keys = ON;",
    )?;
    db.execute_batch(BASE)?;
    let version: usize = db.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    for (i, step) in STEPS.iter().enumerate().skip(version) {
        let tx = db.transaction()?;
        tx.execute_batch(step)?;
        tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_the_first_servers_is_brought_up_to_date() {
        let mut db = Connection::open_in_memory().unwrap();
        db.execute_batch(BASE).unwrap();
        db.execute_batch(
            "INSERT INTO games (black, white, owner, created) VALUES ('human', 'random', 'a', 1);
             INSERT INTO moves (game, ply, mv) VALUES (1, 0, 5), (1, 1, 6);",
        )
        .unwrap();
        migrate(&mut db).unwrap();
        let plies: i64 = db
            .query_row("SELECT plies FROM games WHERE id = 1", [], |r| r.get(0))
            .unwrap();
        assert_eq!(plies, 2);
        // Again: nothing to do.
        migrate(&mut db).unwrap();
        let version: usize = db
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, STEPS.len());
    }
}
