//! The host every command loads through: the real file system and the whole process
//! environment (the `prompty-host` crate's `StdHost`, shared with the `prompty` facade).

use prompty_host::StdHost;

/// The command line tool reads `${env:}` from its environment, as users expect of a CLI.
pub(crate) fn cli_host() -> StdHost {
    StdHost::new().allow_env(true)
}
