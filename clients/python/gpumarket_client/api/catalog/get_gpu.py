from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.gpu_detail_view import GpuDetailView
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    gpu: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/hardware/{gpu}".format(
            gpu=quote(str(gpu), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GpuDetailView | Problem | None:
    if response.status_code == 200:
        response_200 = GpuDetailView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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
) -> Response[GpuDetailView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    gpu: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[GpuDetailView | Problem]:
    """A GPU and the figures of every model measured on it, verified and community apart.

    Args:
        gpu (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GpuDetailView | Problem]
    """

    kwargs = _get_kwargs(
        gpu=gpu,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    gpu: str,
    *,
    client: AuthenticatedClient | Client,
) -> GpuDetailView | Problem | None:
    """A GPU and the figures of every model measured on it, verified and community apart.

    Args:
        gpu (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GpuDetailView | Problem
    """

    return sync_detailed(
        gpu=gpu,
        client=client,
    ).parsed


async def asyncio_detailed(
    gpu: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[GpuDetailView | Problem]:
    """A GPU and the figures of every model measured on it, verified and community apart.

    Args:
        gpu (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GpuDetailView | Problem]
    """

    kwargs = _get_kwargs(
        gpu=gpu,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    gpu: str,
    *,
    client: AuthenticatedClient | Client,
) -> GpuDetailView | Problem | None:
    """A GPU and the figures of every model measured on it, verified and community apart.

    Args:
        gpu (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GpuDetailView | Problem
    """

    return (
        await asyncio_detailed(
            gpu=gpu,
            client=client,
        )
    ).parsed
