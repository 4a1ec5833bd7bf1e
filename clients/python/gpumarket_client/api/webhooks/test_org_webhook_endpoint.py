from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.test_event_view import TestEventView
from ...types import Response


def _get_kwargs(
    id: UUID,
    endpoint_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/orgs/{id}/webhook-endpoints/{endpoint_id}/test".format(
            id=quote(str(id), safe=""),
            endpoint_id=quote(str(endpoint_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | TestEventView | None:
    if response.status_code == 202:
        response_202 = TestEventView.from_dict(response.json())

        return response_202

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
) -> Response[Problem | TestEventView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | TestEventView]:
    """Send an endpoint a `webhook.test` event, delivered and retried like any other (a
    disabled endpoint is enabled again first).

    Args:
        id (UUID):
        endpoint_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TestEventView]
    """

    kwargs = _get_kwargs(
        id=id,
        endpoint_id=endpoint_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Problem | TestEventView | None:
    """Send an endpoint a `webhook.test` event, delivered and retried like any other (a
    disabled endpoint is enabled again first).

    Args:
        id (UUID):
        endpoint_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TestEventView
    """

    return sync_detailed(
        id=id,
        endpoint_id=endpoint_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | TestEventView]:
    """Send an endpoint a `webhook.test` event, delivered and retried like any other (a
    disabled endpoint is enabled again first).

    Args:
        id (UUID):
        endpoint_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TestEventView]
    """

    kwargs = _get_kwargs(
        id=id,
        endpoint_id=endpoint_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Problem | TestEventView | None:
    """Send an endpoint a `webhook.test` event, delivered and retried like any other (a
    disabled endpoint is enabled again first).

    Args:
        id (UUID):
        endpoint_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TestEventView
    """

    return (
        await asyncio_detailed(
            id=id,
            endpoint_id=endpoint_id,
            client=client,
        )
    ).parsed
