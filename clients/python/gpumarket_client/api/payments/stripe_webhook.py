from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.webhook_answer import WebhookAnswer
from ...types import Response


def _get_kwargs(
    *,
    body: str,
    stripe_signature: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Stripe-Signature"] = stripe_signature

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/webhooks/stripe",
    }

    _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | WebhookAnswer | None:
    if response.status_code == 200:
        response_200 = WebhookAnswer.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | WebhookAnswer]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: str,
    stripe_signature: str,
) -> Response[Problem | WebhookAnswer]:
    """Stripe's webhook endpoint. The `Stripe-Signature` header is checked over the raw body
    with the endpoint secret and a 300 s tolerance; a forged or stale delivery gets 400 and
    changes nothing. Each event id is acted on once.

    Args:
        stripe_signature (str):
        body (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookAnswer]
    """

    kwargs = _get_kwargs(
        body=body,
        stripe_signature=stripe_signature,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: str,
    stripe_signature: str,
) -> Problem | WebhookAnswer | None:
    """Stripe's webhook endpoint. The `Stripe-Signature` header is checked over the raw body
    with the endpoint secret and a 300 s tolerance; a forged or stale delivery gets 400 and
    changes nothing. Each event id is acted on once.

    Args:
        stripe_signature (str):
        body (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookAnswer
    """

    return sync_detailed(
        client=client,
        body=body,
        stripe_signature=stripe_signature,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: str,
    stripe_signature: str,
) -> Response[Problem | WebhookAnswer]:
    """Stripe's webhook endpoint. The `Stripe-Signature` header is checked over the raw body
    with the endpoint secret and a 300 s tolerance; a forged or stale delivery gets 400 and
    changes nothing. Each event id is acted on once.

    Args:
        stripe_signature (str):
        body (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookAnswer]
    """

    kwargs = _get_kwargs(
        body=body,
        stripe_signature=stripe_signature,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: str,
    stripe_signature: str,
) -> Problem | WebhookAnswer | None:
    """Stripe's webhook endpoint. The `Stripe-Signature` header is checked over the raw body
    with the endpoint secret and a 300 s tolerance; a forged or stale delivery gets 400 and
    changes nothing. Each event id is acted on once.

    Args:
        stripe_signature (str):
        body (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookAnswer
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            stripe_signature=stripe_signature,
        )
    ).parsed
