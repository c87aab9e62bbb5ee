//! The people's ratings, by the id in their name cookie.

use super::{Store, StoreError};
use crate::rating::Rating;
use rusqlite::{params, OptionalExtension};

impl Store {
    /// The rating of person `id`, if they have played a rated game.
    pub fn rating(&self, id: &str) -> Result<Option<Rating>, StoreError> {
        Ok(self
            .db
            .prepare_cached("SELECT rating, deviation, volatility FROM players WHERE id = ?1")?
            .query_row(params![id], |r| {
                Ok(Rating {
                    rating: r.get(0)?,
                    deviation: r.get(1)?,
                    volatility: r.get(2)?,
                })
            })
            .optional()?)
    }

    /// Keeps the ratings after a rated game, both in one transaction.
    pub fn save_ratings(&mut self, ratings: [(&str, Rating); 2]) -> Result<(), StoreError> {
        let tx = self.db.transaction()?;
        for (id, r) in ratings {
            tx.execute(
                "INSERT INTO players (id, rating, deviation, volatility, games)
                 VALUES (?1, ?2, ?3, ?4, 1)
                 ON CONFLICT (id) DO UPDATE SET rating = ?2, deviation = ?3,
                     volatility = ?4, games = games + 1",
                params![id, r.rating, r.deviation, r.volatility],
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_are_kept_and_replaced() {
        let mut s = Store::open(":memory:").unwrap();
        assert_eq!(s.rating("a").unwrap(), None);
        let up = Rating {
            rating: 1662.3,
            ..Rating::default()
        };
        let down = Rating {
            rating: 1337.7,
            ..Rating::default()
        };
        s.save_ratings([("a", up), ("b", down)]).unwrap();
        s.save_ratings([("a", down), ("c", up)]).unwrap();
        assert_eq!(s.rating("a").unwrap(), Some(down));
        assert_eq!(s.rating("b").unwrap(), Some(down));
        let games: i64 =
            s.db.query_row("SELECT games FROM players WHERE id = 'a'", [], |r| r.get(0))
                .unwrap();
        assert_eq!(games, 2);
    }
}
