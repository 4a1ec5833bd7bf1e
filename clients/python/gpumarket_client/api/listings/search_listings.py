import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_search_hit_view import PageSearchHitView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    gpu_model: str | Unset = UNSET,
    gpu: str | Unset = UNSET,
    min_vram_gb: int | Unset = UNSET,
    max_price: int | Unset = UNSET,
    currency: str | Unset = UNSET,
    region: str | Unset = UNSET,
    verified: bool | Unset = UNSET,
    hardware_confirmed: bool | Unset = UNSET,
    min_total_tok_s: float | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    context: int | Unset = UNSET,
    concurrency: int | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    gpu_count: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    sort: str | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["gpu_model"] = gpu_model

    params["gpu"] = gpu

    params["min_vram_gb"] = min_vram_gb

    params["max_price"] = max_price

    params["currency"] = currency

    params["region"] = region

    params["verified"] = verified

    params["hardware_confirmed"] = hardware_confirmed

    params["min_total_tok_s"] = min_total_tok_s

    params["max_j_per_token"] = max_j_per_token

    params["context"] = context

    params["concurrency"] = concurrency

    json_available_from: str | Unset = UNSET
    if not isinstance(available_from, Unset):
        json_available_from = available_from.isoformat()
    params["available_from"] = json_available_from

    json_available_until: str | Unset = UNSET
    if not isinstance(available_until, Unset):
        json_available_until = available_until.isoformat()
    params["available_until"] = json_available_until

    params["gpu_count"] = gpu_count

    params["min_reliability"] = min_reliability

    params["engine"] = engine

    params["sort"] = sort

    params["cursor"] = cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/listings",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageSearchHitView | Problem | None:
    if response.status_code == 200:
        response_200 = PageSearchHitView.from_dict(response.json())

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
) -> Response[PageSearchHitView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    gpu_model: str | Unset = UNSET,
    gpu: str | Unset = UNSET,
    min_vram_gb: int | Unset = UNSET,
    max_price: int | Unset = UNSET,
    currency: str | Unset = UNSET,
    region: str | Unset = UNSET,
    verified: bool | Unset = UNSET,
    hardware_confirmed: bool | Unset = UNSET,
    min_total_tok_s: float | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    context: int | Unset = UNSET,
    concurrency: int | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    gpu_count: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    sort: str | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[PageSearchHitView | Problem]:
    """Search listings by hardware, price, region, free capacity and measured performance.
    Public. Results are pages `{items, next_cursor}`; pass `cursor` for the next one.

    Args:
        gpu_model (str | Unset):
        gpu (str | Unset):
        min_vram_gb (int | Unset):
        max_price (int | Unset):
        currency (str | Unset):
        region (str | Unset):
        verified (bool | Unset):
        hardware_confirmed (bool | Unset):
        min_total_tok_s (float | Unset):
        max_j_per_token (float | Unset):
        context (int | Unset):
        concurrency (int | Unset):
        available_from (datetime.datetime | Unset):
        available_until (datetime.datetime | Unset):
        gpu_count (int | Unset):
        min_reliability (float | Unset):
        engine (str | Unset):
        sort (str | Unset):
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSearchHitView | Problem]
    """

    kwargs = _get_kwargs(
        gpu_model=gpu_model,
        gpu=gpu,
        min_vram_gb=min_vram_gb,
        max_price=max_price,
        currency=currency,
        region=region,
        verified=verified,
        hardware_confirmed=hardware_confirmed,
        min_total_tok_s=min_total_tok_s,
        max_j_per_token=max_j_per_token,
        context=context,
        concurrency=concurrency,
        available_from=available_from,
        available_until=available_until,
        gpu_count=gpu_count,
        min_reliability=min_reliability,
        engine=engine,
        sort=sort,
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
    gpu_model: str | Unset = UNSET,
    gpu: str | Unset = UNSET,
    min_vram_gb: int | Unset = UNSET,
    max_price: int | Unset = UNSET,
    currency: str | Unset = UNSET,
    region: str | Unset = UNSET,
    verified: bool | Unset = UNSET,
    hardware_confirmed: bool | Unset = UNSET,
    min_total_tok_s: float | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    context: int | Unset = UNSET,
    concurrency: int | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    gpu_count: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    sort: str | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> PageSearchHitView | Problem | None:
    """Search listings by hardware, price, region, free capacity and measured performance.
    Public. Results are pages `{items, next_cursor}`; pass `cursor` for the next one.

    Args:
        gpu_model (str | Unset):
        gpu (str | Unset):
        min_vram_gb (int | Unset):
        max_price (int | Unset):
        currency (str | Unset):
        region (str | Unset):
        verified (bool | Unset):
        hardware_confirmed (bool | Unset):
        min_total_tok_s (float | Unset):
        max_j_per_token (float | Unset):
        context (int | Unset):
        concurrency (int | Unset):
        available_from (datetime.datetime | Unset):
        available_until (datetime.datetime | Unset):
        gpu_count (int | Unset):
        min_reliability (float | Unset):
        engine (str | Unset):
        sort (str | Unset):
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSearchHitView | Problem
    """

    return sync_detailed(
        client=client,
        gpu_model=gpu_model,
        gpu=gpu,
        min_vram_gb=min_vram_gb,
        max_price=max_price,
        currency=currency,
        region=region,
        verified=verified,
        hardware_confirmed=hardware_confirmed,
        min_total_tok_s=min_total_tok_s,
        max_j_per_token=max_j_per_token,
        context=context,
        concurrency=concurrency,
        available_from=available_from,
        available_until=available_until,
        gpu_count=gpu_count,
        min_reliability=min_reliability,
        engine=engine,
        sort=sort,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    gpu_model: str | Unset = UNSET,
    gpu: str | Unset = UNSET,
    min_vram_gb: int | Unset = UNSET,
    max_price: int | Unset = UNSET,
    currency: str | Unset = UNSET,
    region: str | Unset = UNSET,
    verified: bool | Unset = UNSET,
    hardware_confirmed: bool | Unset = UNSET,
    min_total_tok_s: float | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    context: int | Unset = UNSET,
    concurrency: int | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    gpu_count: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    sort: str | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[PageSearchHitView | Problem]:
    """Search listings by hardware, price, region, free capacity and measured performance.
    Public. Results are pages `{items, next_cursor}`; pass `cursor` for the next one.

    Args:
        gpu_model (str | Unset):
        gpu (str | Unset):
        min_vram_gb (int | Unset):
        max_price (int | Unset):
        currency (str | Unset):
        region (str | Unset):
        verified (bool | Unset):
        hardware_confirmed (bool | Unset):
        min_total_tok_s (float | Unset):
        max_j_per_token (float | Unset):
        context (int | Unset):
        concurrency (int | Unset):
        available_from (datetime.datetime | Unset):
        available_until (datetime.datetime | Unset):
        gpu_count (int | Unset):
        min_reliability (float | Unset):
        engine (str | Unset):
        sort (str | Unset):
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSearchHitView | Problem]
    """

    kwargs = _get_kwargs(
        gpu_model=gpu_model,
        gpu=gpu,
        min_vram_gb=min_vram_gb,
        max_price=max_price,
        currency=currency,
        region=region,
        verified=verified,
        hardware_confirmed=hardware_confirmed,
        min_total_tok_s=min_total_tok_s,
        max_j_per_token=max_j_per_token,
        context=context,
        concurrency=concurrency,
        available_from=available_from,
        available_until=available_until,
        gpu_count=gpu_count,
        min_reliability=min_reliability,
        engine=engine,
        sort=sort,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    gpu_model: str | Unset = UNSET,
    gpu: str | Unset = UNSET,
    min_vram_gb: int | Unset = UNSET,
    max_price: int | Unset = UNSET,
    currency: str | Unset = UNSET,
    region: str | Unset = UNSET,
    verified: bool | Unset = UNSET,
    hardware_confirmed: bool | Unset = UNSET,
    min_total_tok_s: float | Unset = UNSET,
    max_j_per_token: float | Unset = UNSET,
    context: int | Unset = UNSET,
    concurrency: int | Unset = UNSET,
    available_from: datetime.datetime | Unset = UNSET,
    available_until: datetime.datetime | Unset = UNSET,
    gpu_count: int | Unset = UNSET,
    min_reliability: float | Unset = UNSET,
    engine: str | Unset = UNSET,
    sort: str | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> PageSearchHitView | Problem | None:
    """Search listings by hardware, price, region, free capacity and measured performance.
    Public. Results are pages `{items, next_cursor}`; pass `cursor` for the next one.

    Args:
        gpu_model (str | Unset):
        gpu (str | Unset):
        min_vram_gb (int | Unset):
        max_price (int | Unset):
        currency (str | Unset):
        region (str | Unset):
        verified (bool | Unset):
        hardware_confirmed (bool | Unset):
        min_total_tok_s (float | Unset):
        max_j_per_token (float | Unset):
        context (int | Unset):
        concurrency (int | Unset):
        available_from (datetime.datetime | Unset):
        available_until (datetime.datetime | Unset):
        gpu_count (int | Unset):
        min_reliability (float | Unset):
        engine (str | Unset):
        sort (str | Unset):
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSearchHitView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            gpu_model=gpu_model,
            gpu=gpu,
            min_vram_gb=min_vram_gb,
            max_price=max_price,
            currency=currency,
            region=region,
            verified=verified,
            hardware_confirmed=hardware_confirmed,
            min_total_tok_s=min_total_tok_s,
            max_j_per_token=max_j_per_token,
            context=context,
            concurrency=concurrency,
            available_from=available_from,
            available_until=available_until,
            gpu_count=gpu_count,
            min_reliability=min_reliability,
            engine=engine,
            sort=sort,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
