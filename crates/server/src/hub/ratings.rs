//! Ratings after a game between two people: rated when both came with a
//! name cookie (two different ids), from two different client addresses
//! (so that one person with two cookies cannot farm a rating from one
//! machine), and each side made a move; each person's Glicko-2 rating
//! moves by that one game.

use super::Hub;

/// Plies a game needs to be rated: one move each (lichess rates no game
/// aborted before both sides moved).
const RATED_PLIES: usize = 2;

impl Hub {
    /// Rates game `id`, which has just ended, if it is rated: the new
    /// ratings are stored, then shown in its state and kept with its
    /// people's connections (for the lobby). A rating not saved is reported and changes
    /// nothing.
    pub(super) fn rate(&mut self, id: u64) {
        let Some(game) = self.games.get(&id) else {
            return;
        };
        let (Some(ending), [Some(black), Some(white)]) = (&game.ending, &game.people) else {
            return;
        };
        if !game.between_people() || black == white || game.moves.len() < RATED_PLIES {
            return;
        }
        // Where a seat was taken from is known to this process alone: a
        // game loaded from the database is rated once both seats have been
        // taken again.
        match &game.addrs {
            [Some(a), Some(b)] if a != b => {}
            _ => return,
        }
        let black_score = match ending.winner() {
            "black" => 1.0,
            "white" => 0.0,
            _ => 0.5,
        };
        let before = [black, white].map(|p| match self.store.rating(p) {
            Ok(r) => Ok(r.unwrap_or_default()),
            Err(e) => Err(e),
        });
        let [Ok(b), Ok(w)] = before else {
            eprintln!("yolah serve: game {id}: the ratings could not be read");
            return;
        };
        let after = [
            b.after(&[(w, black_score)]),
            w.after(&[(b, 1.0 - black_score)]),
        ];
        let people = [black.clone(), white.clone()];
        if let Err(e) = self
            .store
            .save_ratings([(&people[0], after[0]), (&people[1], after[1])])
        {
            eprintln!("yolah serve: game {id}: the ratings were not saved: {e}");
            return;
        }
        for c in self.conns.values_mut() {
            if let Some(i) = people.iter().position(|p| c.person.as_ref() == Some(p)) {
                c.rating = Some(after[i]);
            }
        }
        let game = self.games.get_mut(&id).expect("rated above");
        game.ratings = after.map(Some);
        self.lobby_changed = true;
    }
}
