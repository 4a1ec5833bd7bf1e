from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.consistency_view import ConsistencyView
from ...models.problem import Problem
from ...types import UNSET, Response


def _get_kwargs(
    *,
    first: int,
    second: int,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["first"] = first

    params["second"] = second

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/log/consistency",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConsistencyView | Problem | None:
    if response.status_code == 200:
        response_200 = ConsistencyView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

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
) -> Response[ConsistencyView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    first: int,
    second: int,
) -> Response[ConsistencyView | Problem]:
    """The RFC 9162 proof that the tree of `second` leaves extends the tree of `first` leaves
    (empty when `first` is 0 or equals `second`). Public.

    Args:
        first (int):
        second (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConsistencyView | Problem]
    """

    kwargs = _get_kwargs(
        first=first,
        second=second,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    first: int,
    second: int,
) -> ConsistencyView | Problem | None:
    """The RFC 9162 proof that the tree of `second` leaves extends the tree of `first` leaves
    (empty when `first` is 0 or equals `second`). Public.

    Args:
        first (int):
        second (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConsistencyView | Problem
    """

    return sync_detailed(
        client=client,
        first=first,
        second=second,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    first: int,
    second: int,
) -> Response[ConsistencyView | Problem]:
    """The RFC 9162 proof that the tree of `second` leaves extends the tree of `first` leaves
    (empty when `first` is 0 or equals `second`). Public.

    Args:
        first (int):
        second (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConsistencyView | Problem]
    """

    kwargs = _get_kwargs(
        first=first,
        second=second,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    first: int,
    second: int,
) -> ConsistencyView | Problem | None:
    """The RFC 9162 proof that the tree of `second` leaves extends the tree of `first` leaves
    (empty when `first` is 0 or equals `second`). Public.

    Args:
        first (int):
        second (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConsistencyView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            first=first,
            second=second,
        )
    ).parsed
