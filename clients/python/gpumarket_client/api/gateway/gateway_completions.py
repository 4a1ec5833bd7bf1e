from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.gateway_completions_body import GatewayCompletionsBody
from ...models.gateway_completions_response_200 import GatewayCompletionsResponse200
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    booking_id: UUID,
    *,
    body: GatewayCompletionsBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/gateway/{booking_id}/v1/completions".format(
            booking_id=quote(str(booking_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GatewayCompletionsResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GatewayCompletionsResponse200.from_dict(response.json())

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
) -> Response[GatewayCompletionsResponse200 | Problem]:
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
    body: GatewayCompletionsBody,
) -> Response[GatewayCompletionsResponse200 | Problem]:
    """A completion on the booked machine, metered (as chat completions). `prompt` is one
    prompt: a string, or one list of token ids; a list of several prompts is refused
    (`unsupported_request`).

    Args:
        booking_id (UUID):
        body (GatewayCompletionsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GatewayCompletionsResponse200 | Problem]
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
    body: GatewayCompletionsBody,
) -> GatewayCompletionsResponse200 | Problem | None:
    """A completion on the booked machine, metered (as chat completions). `prompt` is one
    prompt: a string, or one list of token ids; a list of several prompts is refused
    (`unsupported_request`).

    Args:
        booking_id (UUID):
        body (GatewayCompletionsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GatewayCompletionsResponse200 | Problem
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
    body: GatewayCompletionsBody,
) -> Response[GatewayCompletionsResponse200 | Problem]:
    """A completion on the booked machine, metered (as chat completions). `prompt` is one
    prompt: a string, or one list of token ids; a list of several prompts is refused
    (`unsupported_request`).

    Args:
        booking_id (UUID):
        body (GatewayCompletionsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GatewayCompletionsResponse200 | Problem]
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
    body: GatewayCompletionsBody,
) -> GatewayCompletionsResponse200 | Problem | None:
    """A completion on the booked machine, metered (as chat completions). `prompt` is one
    prompt: a string, or one list of token ids; a list of several prompts is refused
    (`unsupported_request`).

    Args:
        booking_id (UUID):
        body (GatewayCompletionsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GatewayCompletionsResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            booking_id=booking_id,
            client=client,
            body=body,
        )
    ).parsed
