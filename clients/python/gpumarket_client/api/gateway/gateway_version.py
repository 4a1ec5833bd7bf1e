from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.gateway_version_response_200 import GatewayVersionResponse200
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    booking_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/gateway/{booking_id}/version".format(
            booking_id=quote(str(booking_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GatewayVersionResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GatewayVersionResponse200.from_dict(response.json())

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
) -> Response[GatewayVersionResponse200 | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    booking_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[GatewayVersionResponse200 | Problem]:
    """The booked engine's `/version`, in vLLM's shape (`{version}`) whatever the engine: vLLM's
    answer passes unchanged; llama.cpp's build (`/props`), SGLang's and TGI's versions are
    translated; 404 when the engine states none.

    Args:
        booking_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GatewayVersionResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        booking_id=booking_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    booking_id: UUID,
    *,
    client: AuthenticatedClient,
) -> GatewayVersionResponse200 | Problem | None:
    """The booked engine's `/version`, in vLLM's shape (`{version}`) whatever the engine: vLLM's
    answer passes unchanged; llama.cpp's build (`/props`), SGLang's and TGI's versions are
    translated; 404 when the engine states none.

    Args:
        booking_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GatewayVersionResponse200 | Problem
    """

    return sync_detailed(
        booking_id=booking_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    booking_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[GatewayVersionResponse200 | Problem]:
    """The booked engine's `/version`, in vLLM's shape (`{version}`) whatever the engine: vLLM's
    answer passes unchanged; llama.cpp's build (`/props`), SGLang's and TGI's versions are
    translated; 404 when the engine states none.

    Args:
        booking_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GatewayVersionResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        booking_id=booking_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    booking_id: UUID,
    *,
    client: AuthenticatedClient,
) -> GatewayVersionResponse200 | Problem | None:
    """The booked engine's `/version`, in vLLM's shape (`{version}`) whatever the engine: vLLM's
    answer passes unchanged; llama.cpp's build (`/props`), SGLang's and TGI's versions are
    translated; 404 when the engine states none.

    Args:
        booking_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GatewayVersionResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            booking_id=booking_id,
            client=client,
        )
    ).parsed
