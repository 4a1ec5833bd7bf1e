from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.container_logs_view import ContainerLogsView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    tail: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["tail"] = tail

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/bookings/{id}/logs".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ContainerLogsView | Problem | None:
    if response.status_code == 200:
        response_200 = ContainerLogsView.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ContainerLogsView | Problem]:
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
    tail: int | Unset = UNSET,
) -> Response[ContainerLogsView | Problem]:
    """The booking's container's logs (the renter, while the booking gives access): its
    machine's agent reads them from dockerd when asked, within 10 s (503 with `Retry-After`
    when it does not answer; 404 for a booking without a container).

    Args:
        id (UUID):
        tail (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContainerLogsView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        tail=tail,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    tail: int | Unset = UNSET,
) -> ContainerLogsView | Problem | None:
    """The booking's container's logs (the renter, while the booking gives access): its
    machine's agent reads them from dockerd when asked, within 10 s (503 with `Retry-After`
    when it does not answer; 404 for a booking without a container).

    Args:
        id (UUID):
        tail (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContainerLogsView | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        tail=tail,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    tail: int | Unset = UNSET,
) -> Response[ContainerLogsView | Problem]:
    """The booking's container's logs (the renter, while the booking gives access): its
    machine's agent reads them from dockerd when asked, within 10 s (503 with `Retry-After`
    when it does not answer; 404 for a booking without a container).

    Args:
        id (UUID):
        tail (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContainerLogsView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        tail=tail,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    tail: int | Unset = UNSET,
) -> ContainerLogsView | Problem | None:
    """The booking's container's logs (the renter, while the booking gives access): its
    machine's agent reads them from dockerd when asked, within 10 s (503 with `Retry-After`
    when it does not answer; 404 for a booking without a container).

    Args:
        id (UUID):
        tail (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContainerLogsView | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            tail=tail,
        )
    ).parsed
