use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;
use crate::extract::Query;
use crate::views::{BookingView, Page, cursor_after};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BookingPageQuery {
    /// `next_cursor` of the previous page.
    pub cursor: Option<Uuid>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

impl BookingPageQuery {
    pub fn limit(&self) -> Result<u64, ApiError> {
        app::market::listings::page_limit(self.limit).map_err(|e| app::AppError::from(e).into())
    }

    /// A page of bookings, with the cursor to the next when this one is full.
    pub fn page(
        &self,
        bookings: Vec<app::market::bookings::Booking>,
        limit: u64,
    ) -> Page<BookingView> {
        let next_cursor = cursor_after(&bookings, limit, |b| b.id.to_string());
        Page {
            items: bookings.into_iter().map(BookingView::from).collect(),
            next_cursor,
        }
    }
}

/// Your bookings as a renter, newest first.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_bookings", 
    tag = "bookings",
    security(("bearer" = [])),
    params(BookingPageQuery),
    responses(
        (status = 200, description = "One page of your bookings", body = Page<BookingView>),
        Problems<(InvalidToken, Unauthenticated)>,
    )
)]
#[get("/bookings")]
pub async fn list(
    app: web::Data<App>,
    Auth(caller): Auth,
    query: Query<BookingPageQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.limit()?;
    let bookings = app
        .my_bookings(caller, query.cursor.map(Into::into), limit)
        .await?;
    Ok(HttpResponse::Ok().json(query.page(bookings, limit)))
}

/// Bookings of a listing, newest first: for members of the provider organisation.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_listing_bookings", 
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id"), BookingPageQuery),
    responses(
        (status = 200, description = "One page of the listing's bookings", body = Page<BookingView>),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/listings/{id}/bookings")]
pub async fn of_listing(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    query: Query<BookingPageQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.limit()?;
    let bookings = app
        .listing_bookings(
            caller,
            id.into_inner().into(),
            query.cursor.map(Into::into),
            limit,
        )
        .await?;
    Ok(HttpResponse::Ok().json(query.page(bookings, limit)))
}
