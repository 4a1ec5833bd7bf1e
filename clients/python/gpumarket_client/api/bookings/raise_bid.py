from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.booking_view import BookingView
from ...models.problem import Problem
from ...models.raise_bid_request import RaiseBidRequest
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    body: RaiseBidRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/bookings/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> BookingView | Problem | None:
    if response.status_code == 200:
        response_200 = BookingView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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
) -> Response[BookingView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RaiseBidRequest,
) -> Response[BookingView | Problem]:
    """Raise your interruptible booking's bid: the whole booking is repriced at it (the
    difference judged by your budget: 409 `budget_exceeded`), and from then on only an
    on-demand booking or a bid above it displaces it. Where the provider takes no payments it
    holds at once. A booking paid through Stripe is charged the difference: the answer's
    `bid_raise.payment` carries the PaymentIntent (with its `client_secret`), the old bid holds
    until Stripe reports it paid, and a raise paid once it could no longer hold is refunded in
    full. A new raise replaces one still waiting for its payment. A booking displaced, over or
    (with Stripe) not paid yet answers 409 `booking_not_active`.

    Args:
        id (UUID):
        body (RaiseBidRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BookingView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RaiseBidRequest,
) -> BookingView | Problem | None:
    """Raise your interruptible booking's bid: the whole booking is repriced at it (the
    difference judged by your budget: 409 `budget_exceeded`), and from then on only an
    on-demand booking or a bid above it displaces it. Where the provider takes no payments it
    holds at once. A booking paid through Stripe is charged the difference: the answer's
    `bid_raise.payment` carries the PaymentIntent (with its `client_secret`), the old bid holds
    until Stripe reports it paid, and a raise paid once it could no longer hold is refunded in
    full. A new raise replaces one still waiting for its payment. A booking displaced, over or
    (with Stripe) not paid yet answers 409 `booking_not_active`.

    Args:
        id (UUID):
        body (RaiseBidRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BookingView | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RaiseBidRequest,
) -> Response[BookingView | Problem]:
    """Raise your interruptible booking's bid: the whole booking is repriced at it (the
    difference judged by your budget: 409 `budget_exceeded`), and from then on only an
    on-demand booking or a bid above it displaces it. Where the provider takes no payments it
    holds at once. A booking paid through Stripe is charged the difference: the answer's
    `bid_raise.payment` carries the PaymentIntent (with its `client_secret`), the old bid holds
    until Stripe reports it paid, and a raise paid once it could no longer hold is refunded in
    full. A new raise replaces one still waiting for its payment. A booking displaced, over or
    (with Stripe) not paid yet answers 409 `booking_not_active`.

    Args:
        id (UUID):
        body (RaiseBidRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BookingView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RaiseBidRequest,
) -> BookingView | Problem | None:
    """Raise your interruptible booking's bid: the whole booking is repriced at it (the
    difference judged by your budget: 409 `budget_exceeded`), and from then on only an
    on-demand booking or a bid above it displaces it. Where the provider takes no payments it
    holds at once. A booking paid through Stripe is charged the difference: the answer's
    `bid_raise.payment` carries the PaymentIntent (with its `client_secret`), the old bid holds
    until Stripe reports it paid, and a raise paid once it could no longer hold is refunded in
    full. A new raise replaces one still waiting for its payment. A booking displaced, over or
    (with Stripe) not paid yet answers 409 `booking_not_active`.

    Args:
        id (UUID):
        body (RaiseBidRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BookingView | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
