from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_leaderboard_row_view import PageLeaderboardRowView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_context: int | None | Unset
    if isinstance(context, Unset):
        json_context = UNSET
    else:
        json_context = context
    params["context"] = json_context

    json_concurrency: int | None | Unset
    if isinstance(concurrency, Unset):
        json_concurrency = UNSET
    else:
        json_concurrency = concurrency
    params["concurrency"] = json_concurrency

    json_source: None | str | Unset
    if isinstance(source, Unset):
        json_source = UNSET
    else:
        json_source = source
    params["source"] = json_source

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/leaderboard",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageLeaderboardRowView | Problem | None:
    if response.status_code == 200:
        response_200 = PageLeaderboardRowView.from_dict(response.json())

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
) -> Response[PageLeaderboardRowView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
) -> Response[PageLeaderboardRowView | Problem]:
    """The best total tok/s per GPU model, engine model and engine: from valid cells of compliant
    verified reports (each row links its report), or with `source=community` from community
    runs (each row links its run).

    Args:
        context (int | None | Unset):
        concurrency (int | None | Unset):
        source (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageLeaderboardRowView | Problem]
    """

    kwargs = _get_kwargs(
        context=context,
        concurrency=concurrency,
        source=source,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
) -> PageLeaderboardRowView | Problem | None:
    """The best total tok/s per GPU model, engine model and engine: from valid cells of compliant
    verified reports (each row links its report), or with `source=community` from community
    runs (each row links its run).

    Args:
        context (int | None | Unset):
        concurrency (int | None | Unset):
        source (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageLeaderboardRowView | Problem
    """

    return sync_detailed(
        client=client,
        context=context,
        concurrency=concurrency,
        source=source,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
) -> Response[PageLeaderboardRowView | Problem]:
    """The best total tok/s per GPU model, engine model and engine: from valid cells of compliant
    verified reports (each row links its report), or with `source=community` from community
    runs (each row links its run).

    Args:
        context (int | None | Unset):
        concurrency (int | None | Unset):
        source (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageLeaderboardRowView | Problem]
    """

    kwargs = _get_kwargs(
        context=context,
        concurrency=concurrency,
        source=source,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
) -> PageLeaderboardRowView | Problem | None:
    """The best total tok/s per GPU model, engine model and engine: from valid cells of compliant
    verified reports (each row links its report), or with `source=community` from community
    runs (each row links its run).

    Args:
        context (int | None | Unset):
        concurrency (int | None | Unset):
        source (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageLeaderboardRowView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            context=context,
            concurrency=concurrency,
            source=source,
        )
    ).parsed
