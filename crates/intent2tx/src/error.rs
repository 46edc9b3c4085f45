//! The one error type of the Intent2Tx subsystem.

use std::path::PathBuf;

/// Everything that can go wrong in the Intent2Tx engine. Bad model output is not an error (it
/// scores zero); these are bad inputs from files or callers.
#[derive(Debug, thiserror::Error)]
pub enum IntentError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The address book file is malformed.
    #[error("address book: {0}")]
    Book(String),
    /// A contract address is not a 20-byte hex address.
    #[error("bad address {0:?}: expected 0x followed by 40 hex digits")]
    BadAddress(String),
    /// The called contract is not in the address book or has no ABI there.
    #[error("unknown contract {0}: not in the address book or no ABI is known for it")]
    UnknownContract(String),
    /// The contract has no function of that name.
    #[error("unknown function {function} on {contract}; known functions: {known}")]
    UnknownFunction {
        /// Contract name or address.
        contract: String,
        /// The function asked for.
        function: String,
        /// The functions the book knows for that contract, comma separated.
        known: String,
    },
    /// Functions of that name exist but none takes the given parameters.
    #[error("no overload of {function} takes ({given}); candidates: {candidates}")]
    NoOverload {
        /// The function asked for.
        function: String,
        /// The parameter types given, comma separated.
        given: String,
        /// The signatures of the candidates, separated by "; ".
        candidates: String,
    },
    /// A parameter value does not fit its Solidity type.
    #[error("parameter {param}: {message}")]
    BadValue {
        /// The parameter name (or `value` for the ETH amount).
        param: String,
        /// What is wrong with it.
        message: String,
    },
    /// A metric mode name that is neither `paper` nor `reference-code`.
    #[error("unknown metric mode {0:?}: use paper or reference-code")]
    UnknownMetricMode(String),
    /// A generator or CLI option is out of range.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The chain failed (node gone, RPC transport, timeout): an infrastructure failure, not a
    /// verdict on an answer.
    #[error("chain: {0}")]
    Chain(#[source] Box<crucible_chain::ChainError>),
    /// The execution fixture could not be applied to the universe.
    #[error("execution fixture: {0}")]
    Fixture(String),
    /// An instance could not be serialised.
    #[error("serialise: {0}")]
    Serialise(#[from] serde_json::Error),
}

impl IntentError {
    /// This error as the run seam reports it, for instance `instance`: a chain failure is what
    /// the chain crate says it is; anything else is the instance's own (its ground truth or
    /// fixture cannot be encoded or applied), reported once and never retried.
    pub fn into_bench(self, instance: &str) -> crucible_core::BenchError {
        use crucible_core::{BenchError, ErrorKind};
        match self {
            Self::Chain(e) if e.kind() == ErrorKind::Infrastructure => {
                BenchError::infrastructure(format!("chain: {e}"), *e)
            }
            other => BenchError::task(instance, other.to_string()),
        }
    }
}

impl From<crucible_chain::ChainError> for IntentError {
    fn from(e: crucible_chain::ChainError) -> Self {
        // Boxed: the chain error is large and would make every `Result<_, IntentError>` large.
        Self::Chain(Box::new(e))
    }
}
