import datetime
from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.quote_view import QuoteView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    listing_id: UUID,
    gpu_count: int,
    starts_at: datetime.datetime,
    ends_at: datetime.datetime,
    tier: str | Unset = UNSET,
    bid_per_gpu_hour: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_listing_id = str(listing_id)
    params["listing_id"] = json_listing_id

    params["gpu_count"] = gpu_count

    json_starts_at = starts_at.isoformat()
    params["starts_at"] = json_starts_at

    json_ends_at = ends_at.isoformat()
    params["ends_at"] = json_ends_at

    params["tier"] = tier

    params["bid_per_gpu_hour"] = bid_per_gpu_hour

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/quote",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | QuoteView | None:
    if response.status_code == 200:
        response_200 = QuoteView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | QuoteView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    listing_id: UUID,
    gpu_count: int,
    starts_at: datetime.datetime,
    ends_at: datetime.datetime,
    tier: str | Unset = UNSET,
    bid_per_gpu_hour: int | Unset = UNSET,
) -> Response[Problem | QuoteView]:
    """Quote a booking request. Public; no side effects.

    Args:
        listing_id (UUID):
        gpu_count (int):
        starts_at (datetime.datetime):
        ends_at (datetime.datetime):
        tier (str | Unset):
        bid_per_gpu_hour (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | QuoteView]
    """

    kwargs = _get_kwargs(
        listing_id=listing_id,
        gpu_count=gpu_count,
        starts_at=starts_at,
        ends_at=ends_at,
        tier=tier,
        bid_per_gpu_hour=bid_per_gpu_hour,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    listing_id: UUID,
    gpu_count: int,
    starts_at: datetime.datetime,
    ends_at: datetime.datetime,
    tier: str | Unset = UNSET,
    bid_per_gpu_hour: int | Unset = UNSET,
) -> Problem | QuoteView | None:
    """Quote a booking request. Public; no side effects.

    Args:
        listing_id (UUID):
        gpu_count (int):
        starts_at (datetime.datetime):
        ends_at (datetime.datetime):
        tier (str | Unset):
        bid_per_gpu_hour (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | QuoteView
    """

    return sync_detailed(
        client=client,
        listing_id=listing_id,
        gpu_count=gpu_count,
        starts_at=starts_at,
        ends_at=ends_at,
        tier=tier,
        bid_per_gpu_hour=bid_per_gpu_hour,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    listing_id: UUID,
    gpu_count: int,
    starts_at: datetime.datetime,
    ends_at: datetime.datetime,
    tier: str | Unset = UNSET,
    bid_per_gpu_hour: int | Unset = UNSET,
) -> Response[Problem | QuoteView]:
    """Quote a booking request. Public; no side effects.

    Args:
        listing_id (UUID):
        gpu_count (int):
        starts_at (datetime.datetime):
        ends_at (datetime.datetime):
        tier (str | Unset):
        bid_per_gpu_hour (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | QuoteView]
    """

    kwargs = _get_kwargs(
        listing_id=listing_id,
        gpu_count=gpu_count,
        starts_at=starts_at,
        ends_at=ends_at,
        tier=tier,
        bid_per_gpu_hour=bid_per_gpu_hour,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    listing_id: UUID,
    gpu_count: int,
    starts_at: datetime.datetime,
    ends_at: datetime.datetime,
    tier: str | Unset = UNSET,
    bid_per_gpu_hour: int | Unset = UNSET,
) -> Problem | QuoteView | None:
    """Quote a booking request. Public; no side effects.

    Args:
        listing_id (UUID):
        gpu_count (int):
        starts_at (datetime.datetime):
        ends_at (datetime.datetime):
        tier (str | Unset):
        bid_per_gpu_hour (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | QuoteView
    """

    return (
        await asyncio_detailed(
            client=client,
            listing_id=listing_id,
            gpu_count=gpu_count,
            starts_at=starts_at,
            ends_at=ends_at,
            tier=tier,
            bid_per_gpu_hour=bid_per_gpu_hour,
        )
    ).parsed
