from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.decode_estimate_view import DecodeEstimateView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    gpu: str,
    model: str,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    electricity_per_mwh: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["gpu"] = gpu

    params["model"] = model

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

    json_electricity_per_mwh: int | None | Unset
    if isinstance(electricity_per_mwh, Unset):
        json_electricity_per_mwh = UNSET
    else:
        json_electricity_per_mwh = electricity_per_mwh
    params["electricity_per_mwh"] = json_electricity_per_mwh

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/calculator/decode",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DecodeEstimateView | Problem | None:
    if response.status_code == 200:
        response_200 = DecodeEstimateView.from_dict(response.json())

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
) -> Response[DecodeEstimateView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    gpu: str,
    model: str,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    electricity_per_mwh: int | None | Unset = UNSET,
) -> Response[DecodeEstimateView | Problem]:
    """Predicted decode speed of a model on a GPU at one context and concurrency, from the
    memory-bandwidth roofline (the formula and constants are in `formula`), beside what
    verified listings measured there. Public.

    Args:
        gpu (str):
        model (str):
        context (int | None | Unset):
        concurrency (int | None | Unset):
        electricity_per_mwh (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DecodeEstimateView | Problem]
    """

    kwargs = _get_kwargs(
        gpu=gpu,
        model=model,
        context=context,
        concurrency=concurrency,
        electricity_per_mwh=electricity_per_mwh,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    gpu: str,
    model: str,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    electricity_per_mwh: int | None | Unset = UNSET,
) -> DecodeEstimateView | Problem | None:
    """Predicted decode speed of a model on a GPU at one context and concurrency, from the
    memory-bandwidth roofline (the formula and constants are in `formula`), beside what
    verified listings measured there. Public.

    Args:
        gpu (str):
        model (str):
        context (int | None | Unset):
        concurrency (int | None | Unset):
        electricity_per_mwh (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DecodeEstimateView | Problem
    """

    return sync_detailed(
        client=client,
        gpu=gpu,
        model=model,
        context=context,
        concurrency=concurrency,
        electricity_per_mwh=electricity_per_mwh,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    gpu: str,
    model: str,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    electricity_per_mwh: int | None | Unset = UNSET,
) -> Response[DecodeEstimateView | Problem]:
    """Predicted decode speed of a model on a GPU at one context and concurrency, from the
    memory-bandwidth roofline (the formula and constants are in `formula`), beside what
    verified listings measured there. Public.

    Args:
        gpu (str):
        model (str):
        context (int | None | Unset):
        concurrency (int | None | Unset):
        electricity_per_mwh (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DecodeEstimateView | Problem]
    """

    kwargs = _get_kwargs(
        gpu=gpu,
        model=model,
        context=context,
        concurrency=concurrency,
        electricity_per_mwh=electricity_per_mwh,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    gpu: str,
    model: str,
    context: int | None | Unset = UNSET,
    concurrency: int | None | Unset = UNSET,
    electricity_per_mwh: int | None | Unset = UNSET,
) -> DecodeEstimateView | Problem | None:
    """Predicted decode speed of a model on a GPU at one context and concurrency, from the
    memory-bandwidth roofline (the formula and constants are in `formula`), beside what
    verified listings measured there. Public.

    Args:
        gpu (str):
        model (str):
        context (int | None | Unset):
        concurrency (int | None | Unset):
        electricity_per_mwh (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DecodeEstimateView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            gpu=gpu,
            model=model,
            context=context,
            concurrency=concurrency,
            electricity_per_mwh=electricity_per_mwh,
        )
    ).parsed
