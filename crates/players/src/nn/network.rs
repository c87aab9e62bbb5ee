//! A network of either file format, ready to run: what `net=FILE` loads.
//!
//! Each first-layer width of the second format is its own type
//! ([`v2::quant::QuantNet`] is generic over it), so a search runs with the
//! width fixed at compile time; [`with_network!`](crate::with_network)
//! hands whichever type was loaded to generic code.

use super::file::{self, NetError};
use super::float::{FloatNet as FloatNet1, MAX_NET_BYTES as MAX_NET1_BYTES};
use super::quant::QuantNet as QuantNet1;
use super::v2::{self, quant::QuantNet};
use yolah::{Color, Position};

/// A loaded network, by format and width.
// One per player, made once: its size does not matter, and boxing a
// variant would put a pointer between the search and its evaluator.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Network {
    /// The first format (`YOLAHNN1`), any of its widths.
    V1(QuantNet1),
    /// The second format, 128 wide.
    W128(QuantNet<128>),
    /// The second format, 256 wide.
    W256(QuantNet<256>),
    /// The second format, 512 wide.
    W512(QuantNet<512>),
    /// The second format, 1024 wide.
    W1024(QuantNet<1024>),
}

/// Evaluates `$body` with `$net` bound to the network inside a
/// [`Network`], whatever its type.
#[macro_export]
macro_rules! with_network {
    ($network:expr, $net:ident => $body:expr) => {
        match $network {
            $crate::nn::Network::V1($net) => $body,
            $crate::nn::Network::W128($net) => $body,
            $crate::nn::Network::W256($net) => $body,
            $crate::nn::Network::W512($net) => $body,
            $crate::nn::Network::W1024($net) => $body,
        }
    };
}

impl Network {
    /// Parses a network file of either format.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if v2::is_this_format(bytes) {
            return Network::new(&v2::FloatNet::from_bytes(bytes)?);
        }
        if !bytes.starts_with(b"YOLAHNN1") {
            return Err(NetError::NotANetwork {
                magic: "YOLAHNN1 to YOLAHNN6",
            });
        }
        let float = FloatNet1::from_bytes(bytes)?;
        Ok(Network::V1(QuantNet1::new(&float)?))
    }

    /// The integer network of a float network of the second format.
    pub fn new(float: &v2::FloatNet) -> Result<Network, NetError> {
        Ok(match float.hidden1 {
            128 => Network::W128(QuantNet::new(float)?),
            256 => Network::W256(QuantNet::new(float)?),
            512 => Network::W512(QuantNet::new(float)?),
            1024 => Network::W1024(QuantNet::new(float)?),
            width => {
                return Err(NetError::Width {
                    width,
                    widths: v2::hidden1_rule(),
                })
            }
        })
    }

    /// Reads a network file of either format.
    pub fn load(path: &str) -> Result<Network, NetError> {
        file::load(
            path,
            MAX_NET1_BYTES.max(v2::MAX_NET_BYTES),
            Network::from_bytes,
        )
    }

    /// The shipped network.
    pub fn shipped() -> Network {
        Network::from_bytes(super::DEFAULT_NET).expect("the shipped network is valid")
    }

    /// The first layer's width.
    pub fn hidden1(&self) -> usize {
        match self {
            Network::V1(net) => net.hidden1(),
            Network::W128(_) => 128,
            Network::W256(_) => 256,
            Network::W512(_) => 512,
            Network::W1024(_) => 1024,
        }
    }

    /// The expected result of `pos` for `color` (1 win, ½ draw, 0 loss).
    pub fn expected_result(&self, pos: &Position, color: Color) -> f64 {
        crate::with_network!(self, net => net.expected_result(pos, color))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_load_and_bad_files_say_why() {
        assert!(matches!(Network::shipped(), Network::W256(_)));
        let gen2 = Network::from_bytes(crate::nn::GEN2_NET).unwrap();
        assert!(matches!(gen2, Network::V1(_)));
        for width in v2::WIDTHS {
            for buckets in [1, v2::BUCKETS] {
                let bytes = v2::FloatNet::random_with_buckets(width, buckets, 1).to_bytes();
                assert_eq!(Network::from_bytes(&bytes).unwrap().hidden1(), width);
            }
        }
        let e = Network::from_bytes(b"nonsense").unwrap_err().to_string();
        assert!(e.contains("YOLAHNN1 to YOLAHNN6"), "{e}");
        let e = Network::load("/no/such.bin").unwrap_err().to_string();
        assert!(e.contains("cannot read"), "{e}");
    }
}
