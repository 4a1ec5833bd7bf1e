//! Organisations and their members.

pub mod add_member;
pub mod create;
pub mod get;
pub mod list;
