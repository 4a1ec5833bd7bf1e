from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.announced_view import AnnouncedView
from ...models.new_window_request import NewWindowRequest
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    body: NewWindowRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/listings/{id}/maintenance".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnnouncedView | Problem | None:
    if response.status_code == 201:
        response_201 = AnnouncedView.from_dict(response.json())

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AnnouncedView | Problem]:
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
    body: NewWindowRequest,
) -> Response[AnnouncedView | Problem]:
    """Announce a maintenance window (members of the listing's organisation). Over its interval
    the whole machine is taken: availability shows no free GPU, search over the interval
    leaves it out, bookings are refused (409 `maintenance`), offers' plans skip it. Bookings
    that hold the machine over it refuse it unless `cancel_overlapping` interrupts them.
    `from` may not be in the past. Announced
    at least `maintenance_notice_secs` ahead its time is left out of uptime; later, it
    counts as downtime.

    Args:
        id (UUID):
        body (NewWindowRequest): A maintenance window as a provider announces it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnnouncedView | Problem]
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
    body: NewWindowRequest,
) -> AnnouncedView | Problem | None:
    """Announce a maintenance window (members of the listing's organisation). Over its interval
    the whole machine is taken: availability shows no free GPU, search over the interval
    leaves it out, bookings are refused (409 `maintenance`), offers' plans skip it. Bookings
    that hold the machine over it refuse it unless `cancel_overlapping` interrupts them.
    `from` may not be in the past. Announced
    at least `maintenance_notice_secs` ahead its time is left out of uptime; later, it
    counts as downtime.

    Args:
        id (UUID):
        body (NewWindowRequest): A maintenance window as a provider announces it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnnouncedView | Problem
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
    body: NewWindowRequest,
) -> Response[AnnouncedView | Problem]:
    """Announce a maintenance window (members of the listing's organisation). Over its interval
    the whole machine is taken: availability shows no free GPU, search over the interval
    leaves it out, bookings are refused (409 `maintenance`), offers' plans skip it. Bookings
    that hold the machine over it refuse it unless `cancel_overlapping` interrupts them.
    `from` may not be in the past. Announced
    at least `maintenance_notice_secs` ahead its time is left out of uptime; later, it
    counts as downtime.

    Args:
        id (UUID):
        body (NewWindowRequest): A maintenance window as a provider announces it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnnouncedView | Problem]
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
    body: NewWindowRequest,
) -> AnnouncedView | Problem | None:
    """Announce a maintenance window (members of the listing's organisation). Over its interval
    the whole machine is taken: availability shows no free GPU, search over the interval
    leaves it out, bookings are refused (409 `maintenance`), offers' plans skip it. Bookings
    that hold the machine over it refuse it unless `cancel_overlapping` interrupts them.
    `from` may not be in the past. Announced
    at least `maintenance_notice_secs` ahead its time is left out of uptime; later, it
    counts as downtime.

    Args:
        id (UUID):
        body (NewWindowRequest): A maintenance window as a provider announces it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnnouncedView | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
