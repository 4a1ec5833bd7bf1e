from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.planner_view import PlannerView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    model: str | Unset = UNSET,
    context: int | Unset = UNSET,
    users: int | Unset = UNSET,
    ttft_p99_ms: float | Unset = UNSET,
    itl_p99_ms: float | Unset = UNSET,
    electricity_per_mwh: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["model"] = model

    params["context"] = context

    params["users"] = users

    params["ttft_p99_ms"] = ttft_p99_ms

    params["itl_p99_ms"] = itl_p99_ms

    params["electricity_per_mwh"] = electricity_per_mwh

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/planner",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PlannerView | Problem | None:
    if response.status_code == 200:
        response_200 = PlannerView.from_dict(response.json())

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
) -> Response[PlannerView | Problem]:
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
    electricity_per_mwh: int | Unset = UNSET,
) -> Response[PlannerView | Problem]:
    """The capacity planner: per GPU of the catalog, the users one machine serves within a
    service-level objective for a model of the catalog — measured where verified listings of
    that GPU and model exist, the decode calculator's roofline prediction where none do — and
    how many machines it takes. Public.

    Args:
        model (str | Unset):
        context (int | Unset):
        users (int | Unset):
        ttft_p99_ms (float | Unset):
        itl_p99_ms (float | Unset):
        electricity_per_mwh (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PlannerView | Problem]
    """

    kwargs = _get_kwargs(
        model=model,
        context=context,
        users=users,
        ttft_p99_ms=ttft_p99_ms,
        itl_p99_ms=itl_p99_ms,
        electricity_per_mwh=electricity_per_mwh,
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
    electricity_per_mwh: int | Unset = UNSET,
) -> PlannerView | Problem | None:
    """The capacity planner: per GPU of the catalog, the users one machine serves within a
    service-level objective for a model of the catalog — measured where verified listings of
    that GPU and model exist, the decode calculator's roofline prediction where none do — and
    how many machines it takes. Public.

    Args:
        model (str | Unset):
        context (int | Unset):
        users (int | Unset):
        ttft_p99_ms (float | Unset):
        itl_p99_ms (float | Unset):
        electricity_per_mwh (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PlannerView | Problem
    """

    return sync_detailed(
        client=client,
        model=model,
        context=context,
        users=users,
        ttft_p99_ms=ttft_p99_ms,
        itl_p99_ms=itl_p99_ms,
        electricity_per_mwh=electricity_per_mwh,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    model: str | Unset = UNSET,
    context: int | Unset = UNSET,
    users: int | Unset = UNSET,
    ttft_p99_ms: float | Unset = UNSET,
    itl_p99_ms: float | Unset = UNSET,
    electricity_per_mwh: int | Unset = UNSET,
) -> Response[PlannerView | Problem]:
    """The capacity planner: per GPU of the catalog, the users one machine serves within a
    service-level objective for a model of the catalog — measured where verified listings of
    that GPU and model exist, the decode calculator's roofline prediction where none do — and
    how many machines it takes. Public.

    Args:
        model (str | Unset):
        context (int | Unset):
        users (int | Unset):
        ttft_p99_ms (float | Unset):
        itl_p99_ms (float | Unset):
        electricity_per_mwh (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PlannerView | Problem]
    """

    kwargs = _get_kwargs(
        model=model,
        context=context,
        users=users,
        ttft_p99_ms=ttft_p99_ms,
        itl_p99_ms=itl_p99_ms,
        electricity_per_mwh=electricity_per_mwh,
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
    electricity_per_mwh: int | Unset = UNSET,
) -> PlannerView | Problem | None:
    """The capacity planner: per GPU of the catalog, the users one machine serves within a
    service-level objective for a model of the catalog — measured where verified listings of
    that GPU and model exist, the decode calculator's roofline prediction where none do — and
    how many machines it takes. Public.

    Args:
        model (str | Unset):
        context (int | Unset):
        users (int | Unset):
        ttft_p99_ms (float | Unset):
        itl_p99_ms (float | Unset):
        electricity_per_mwh (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PlannerView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            model=model,
            context=context,
            users=users,
            ttft_p99_ms=ttft_p99_ms,
            itl_p99_ms=itl_p99_ms,
            electricity_per_mwh=electricity_per_mwh,
        )
    ).parsed
