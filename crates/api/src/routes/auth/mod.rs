//! Registration, login and token refresh (the routes that need no credential), and ending
//! sessions.

pub mod login;
pub mod refresh;
pub mod register;
pub mod sessions;
