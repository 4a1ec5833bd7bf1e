from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.gateway_tokenize_body import GatewayTokenizeBody
from ...models.gateway_tokenize_response_200 import GatewayTokenizeResponse200
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    booking_id: UUID,
    *,
    body: GatewayTokenizeBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/gateway/{booking_id}/tokenize".format(
            booking_id=quote(str(booking_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GatewayTokenizeResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GatewayTokenizeResponse200.from_dict(response.json())

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

    if response.status_code == 502:
        response_502 = Problem.from_dict(response.json())

        return response_502

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[GatewayTokenizeResponse200 | Problem]:
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
    body: GatewayTokenizeBody,
) -> Response[GatewayTokenizeResponse200 | Problem]:
    """The booked engine's `/tokenize`, in vLLM's shape (`{model, prompt}` or `{model,
    messages}` → `{count, max_model_len, tokens}`) whatever the engine: vLLM's answer passes
    unchanged; llama.cpp's and TGI's are translated (a text `prompt` only, else 422); SGLang has
    no tokenizer the gateway knows (404).

    Args:
        booking_id (UUID):
        body (GatewayTokenizeBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GatewayTokenizeResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        booking_id=booking_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    booking_id: UUID,
    *,
    client: AuthenticatedClient,
    body: GatewayTokenizeBody,
) -> GatewayTokenizeResponse200 | Problem | None:
    """The booked engine's `/tokenize`, in vLLM's shape (`{model, prompt}` or `{model,
    messages}` → `{count, max_model_len, tokens}`) whatever the engine: vLLM's answer passes
    unchanged; llama.cpp's and TGI's are translated (a text `prompt` only, else 422); SGLang has
    no tokenizer the gateway knows (404).

    Args:
        booking_id (UUID):
        body (GatewayTokenizeBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GatewayTokenizeResponse200 | Problem
    """

    return sync_detailed(
        booking_id=booking_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    booking_id: UUID,
    *,
    client: AuthenticatedClient,
    body: GatewayTokenizeBody,
) -> Response[GatewayTokenizeResponse200 | Problem]:
    """The booked engine's `/tokenize`, in vLLM's shape (`{model, prompt}` or `{model,
    messages}` → `{count, max_model_len, tokens}`) whatever the engine: vLLM's answer passes
    unchanged; llama.cpp's and TGI's are translated (a text `prompt` only, else 422); SGLang has
    no tokenizer the gateway knows (404).

    Args:
        booking_id (UUID):
        body (GatewayTokenizeBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GatewayTokenizeResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        booking_id=booking_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    booking_id: UUID,
    *,
    client: AuthenticatedClient,
    body: GatewayTokenizeBody,
) -> GatewayTokenizeResponse200 | Problem | None:
    """The booked engine's `/tokenize`, in vLLM's shape (`{model, prompt}` or `{model,
    messages}` → `{count, max_model_len, tokens}`) whatever the engine: vLLM's answer passes
    unchanged; llama.cpp's and TGI's are translated (a text `prompt` only, else 422); SGLang has
    no tokenizer the gateway knows (404).

    Args:
        booking_id (UUID):
        body (GatewayTokenizeBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GatewayTokenizeResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            booking_id=booking_id,
            client=client,
            body=body,
        )
    ).parsed
