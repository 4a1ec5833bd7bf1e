//! Registration, login and token refresh: the routes that need no credential.

pub mod login;
pub mod refresh;
pub mod register;
