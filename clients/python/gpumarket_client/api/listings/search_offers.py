import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.offers_view import OffersView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    model: str | Unset = UNSET,
    context: int | Unset = UNSET,
    users: int | Unset = UNSET,
    ttft_p99_ms: float | Unset = UNSET,
    itl_p99_ms: float | Unset = UNSET,
    currency: str | Unset = UNSET,
    max_price_per_hour: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    include_failing: bool | Unset = UNSET,
    sort: str | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["model"] = model

    params["context"] = context

    params["users"] = users

    params["ttft_p99_ms"] = ttft_p99_ms

    params["itl_p99_ms"] = itl_p99_ms

    params["currency"] = currency

    params["max_price_per_hour"] = max_price_per_hour

    params["min_reliability"] = min_reliability

    params["engine"] = engine

    json_available_from: str | Unset = UNSET
    if not isinstance(available_from, Unset):
        json_available_from = available_from.isoformat()
    params["available_from"] = json_available_from

    json_available_until: str | Unset = UNSET
    if not isinstance(available_until, Unset):
        json_available_until = available_until.isoformat()
    params["available_until"] = json_available_until

    params["include_failing"] = include_failing

    params["sort"] = sort

    params["max_j_per_token"] = max_j_per_token

    params["cursor"] = cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/offers",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> OffersView | Problem | None:
    if response.status_code == 200:
        response_200 = OffersView.from_dict(response.json())

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
) -> Response[OffersView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    model: str | Unset = UNSET,
    context: int | Unset = UNSET,
    users: int | Unset = UNSET,
    ttft_p99_ms: float | Unset = UNSET,
    itl_p99_ms: float | Unset = UNSET,
    currency: str | Unset = UNSET,
    max_price_per_hour: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    include_failing: bool | Unset = UNSET,
    sort: str | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[OffersView | Problem]:
    """Search by a service-level objective: verified machines serving a model, each with the
    users it serves within the objective (goodput, from its signed report's figures), priced
    per hour, per million output tokens and per user-hour, cheapest per user-hour first; and
    the cheapest plan of whole machines that serves `users`. Public. Pages `{items,
    next_cursor}`; the plan is over every offer, on every page.

    Args:
        model (str | Unset):
        context (int | Unset):
        users (int | Unset):
        ttft_p99_ms (float | Unset):
        itl_p99_ms (float | Unset):
        currency (str | Unset):
        max_price_per_hour (int | Unset):
        min_reliability (float | Unset):
        engine (str | Unset):
        available_from (datetime.datetime | Unset):
        available_until (datetime.datetime | Unset):
        include_failing (bool | Unset):
        sort (str | Unset):
        max_j_per_token (float | Unset):
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OffersView | Problem]
    """

    kwargs = _get_kwargs(
        model=model,
        context=context,
        users=users,
        ttft_p99_ms=ttft_p99_ms,
        itl_p99_ms=itl_p99_ms,
        currency=currency,
        max_price_per_hour=max_price_per_hour,
        min_reliability=min_reliability,
        engine=engine,
        available_from=available_from,
        available_until=available_until,
        include_failing=include_failing,
        sort=sort,
        max_j_per_token=max_j_per_token,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    model: str | Unset = UNSET,
    context: int | Unset = UNSET,
    users: int | Unset = UNSET,
    ttft_p99_ms: float | Unset = UNSET,
    itl_p99_ms: float | Unset = UNSET,
    currency: str | Unset = UNSET,
    max_price_per_hour: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    include_failing: bool | Unset = UNSET,
    sort: str | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> OffersView | Problem | None:
    """Search by a service-level objective: verified machines serving a model, each with the
    users it serves within the objective (goodput, from its signed report's figures), priced
    per hour, per million output tokens and per user-hour, cheapest per user-hour first; and
    the cheapest plan of whole machines that serves `users`. Public. Pages `{items,
    next_cursor}`; the plan is over every offer, on every page.

    Args:
        model (str | Unset):
        context (int | Unset):
        users (int | Unset):
        ttft_p99_ms (float | Unset):
        itl_p99_ms (float | Unset):
        currency (str | Unset):
        max_price_per_hour (int | Unset):
        min_reliability (float | Unset):
        engine (str | Unset):
        available_from (datetime.datetime | Unset):
        available_until (datetime.datetime | Unset):
        include_failing (bool | Unset):
        sort (str | Unset):
        max_j_per_token (float | Unset):
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OffersView | Problem
    """

    return sync_detailed(
        client=client,
        model=model,
        context=context,
        users=users,
        ttft_p99_ms=ttft_p99_ms,
        itl_p99_ms=itl_p99_ms,
        currency=currency,
        max_price_per_hour=max_price_per_hour,
        min_reliability=min_reliability,
        engine=engine,
        available_from=available_from,
        available_until=available_until,
        include_failing=include_failing,
        sort=sort,
        max_j_per_token=max_j_per_token,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    model: str | Unset = UNSET,
    context: int | Unset = UNSET,
    users: int | Unset = UNSET,
    ttft_p99_ms: float | Unset = UNSET,
    itl_p99_ms: float | Unset = UNSET,
    currency: str | Unset = UNSET,
    max_price_per_hour: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    include_failing: bool | Unset = UNSET,
    sort: str | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[OffersView | Problem]:
    """Search by a service-level objective: verified machines serving a model, each with the
    users it serves within the objective (goodput, from its signed report's figures), priced
    per hour, per million output tokens and per user-hour, cheapest per user-hour first; and
    the cheapest plan of whole machines that serves `users`. Public. Pages `{items,
    next_cursor}`; the plan is over every offer, on every page.

    Args:
        model (str | Unset):
        context (int | Unset):
        users (int | Unset):
        ttft_p99_ms (float | Unset):
        itl_p99_ms (float | Unset):
        currency (str | Unset):
        max_price_per_hour (int | Unset):
        min_reliability (float | Unset):
        engine (str | Unset):
        available_from (datetime.datetime | Unset):
        available_until (datetime.datetime | Unset):
        include_failing (bool | Unset):
        sort (str | Unset):
        max_j_per_token (float | Unset):
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OffersView | Problem]
    """

    kwargs = _get_kwargs(
        model=model,
        context=context,
        users=users,
        ttft_p99_ms=ttft_p99_ms,
        itl_p99_ms=itl_p99_ms,
        currency=currency,
        max_price_per_hour=max_price_per_hour,
        min_reliability=min_reliability,
        engine=engine,
        available_from=available_from,
        available_until=available_until,
        include_failing=include_failing,
        sort=sort,
        max_j_per_token=max_j_per_token,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    model: str | Unset = UNSET,
    context: int | Unset = UNSET,
    users: int | Unset = UNSET,
    ttft_p99_ms: float | Unset = UNSET,
    itl_p99_ms: float | Unset = UNSET,
    currency: str | Unset = UNSET,
    max_price_per_hour: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    include_failing: bool | Unset = UNSET,
    sort: str | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> OffersView | Problem | None:
    """Search by a service-level objective: verified machines serving a model, each with the
    users it serves within the objective (goodput, from its signed report's figures), priced
    per hour, per million output tokens and per user-hour, cheapest per user-hour first; and
    the cheapest plan of whole machines that serves `users`. Public. Pages `{items,
    next_cursor}`; the plan is over every offer, on every page.

    Args:
        model (str | Unset):
        context (int | Unset):
        users (int | Unset):
        ttft_p99_ms (float | Unset):
        itl_p99_ms (float | Unset):
        currency (str | Unset):
        max_price_per_hour (int | Unset):
        min_reliability (float | Unset):
        engine (str | Unset):
        available_from (datetime.datetime | Unset):
        available_until (datetime.datetime | Unset):
        include_failing (bool | Unset):
        sort (str | Unset):
        max_j_per_token (float | Unset):
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OffersView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            model=model,
            context=context,
            users=users,
            ttft_p99_ms=ttft_p99_ms,
            itl_p99_ms=itl_p99_ms,
            currency=currency,
            max_price_per_hour=max_price_per_hour,
            min_reliability=min_reliability,
            engine=engine,
            available_from=available_from,
            available_until=available_until,
            include_failing=include_failing,
            sort=sort,
            max_j_per_token=max_j_per_token,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
