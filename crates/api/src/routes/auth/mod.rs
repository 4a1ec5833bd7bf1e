//! Registration, login and token refresh (the routes that need no credential), confirming
//! addresses and resetting passwords, and ending sessions.

pub mod email;
pub mod login;
pub mod refresh;
pub mod register;
pub mod sessions;
