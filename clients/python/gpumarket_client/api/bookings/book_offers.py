from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.book_plan_request import BookPlanRequest
from ...models.booked_plan_view import BookedPlanView
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    *,
    body: BookPlanRequest,
    idempotency_key: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/offers/book",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> BookedPlanView | Problem | None:
    if response.status_code == 201:
        response_201 = BookedPlanView.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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

    if response.status_code == 502:
        response_502 = Problem.from_dict(response.json())

        return response_502

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[BookedPlanView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: BookPlanRequest,
    idempotency_key: str,
) -> Response[BookedPlanView | Problem]:
    """Book the cheapest plan that meets a service-level objective over an interval: every
    listing of it whole, in one transaction, all or none. Each listing is checked again under
    its lock (the offers may be stale); one taken meanwhile is left out and the plan chosen
    again from the offers that still meet the objective. The `Idempotency-Key` header is
    required: the same key and body again returns the same plan. A plan counts as one booking
    against `max_open_bookings`; its GPU-hours count in full.

    Args:
        idempotency_key (str):
        body (BookPlanRequest): The objective (as `GET /v1/offers` takes it) and the interval to
            book.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BookedPlanView | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: BookPlanRequest,
    idempotency_key: str,
) -> BookedPlanView | Problem | None:
    """Book the cheapest plan that meets a service-level objective over an interval: every
    listing of it whole, in one transaction, all or none. Each listing is checked again under
    its lock (the offers may be stale); one taken meanwhile is left out and the plan chosen
    again from the offers that still meet the objective. The `Idempotency-Key` header is
    required: the same key and body again returns the same plan. A plan counts as one booking
    against `max_open_bookings`; its GPU-hours count in full.

    Args:
        idempotency_key (str):
        body (BookPlanRequest): The objective (as `GET /v1/offers` takes it) and the interval to
            book.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BookedPlanView | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: BookPlanRequest,
    idempotency_key: str,
) -> Response[BookedPlanView | Problem]:
    """Book the cheapest plan that meets a service-level objective over an interval: every
    listing of it whole, in one transaction, all or none. Each listing is checked again under
    its lock (the offers may be stale); one taken meanwhile is left out and the plan chosen
    again from the offers that still meet the objective. The `Idempotency-Key` header is
    required: the same key and body again returns the same plan. A plan counts as one booking
    against `max_open_bookings`; its GPU-hours count in full.

    Args:
        idempotency_key (str):
        body (BookPlanRequest): The objective (as `GET /v1/offers` takes it) and the interval to
            book.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BookedPlanView | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: BookPlanRequest,
    idempotency_key: str,
) -> BookedPlanView | Problem | None:
    """Book the cheapest plan that meets a service-level objective over an interval: every
    listing of it whole, in one transaction, all or none. Each listing is checked again under
    its lock (the offers may be stale); one taken meanwhile is left out and the plan chosen
    again from the offers that still meet the objective. The `Idempotency-Key` header is
    required: the same key and body again returns the same plan. A plan counts as one booking
    against `max_open_bookings`; its GPU-hours count in full.

    Args:
        idempotency_key (str):
        body (BookPlanRequest): The objective (as `GET /v1/offers` takes it) and the interval to
            book.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BookedPlanView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
