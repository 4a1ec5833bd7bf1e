from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.confirm_request import ConfirmRequest
from ...models.problem import Problem
from ...models.user_view import UserView
from ...types import Response


def _get_kwargs(
    *,
    body: ConfirmRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/auth/email/confirm",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | UserView | None:
    if response.status_code == 200:
        response_200 = UserView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | UserView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ConfirmRequest,
) -> Response[Problem | UserView]:
    """Confirm an email address with the link mailed to it: single use, for 24 hours. When the
    address had been registered again before it was confirmed, the account takes the
    password and name of the registration whose link this is, and every earlier session and
    personal API key ends.

    Args:
        body (ConfirmRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UserView]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: ConfirmRequest,
) -> Problem | UserView | None:
    """Confirm an email address with the link mailed to it: single use, for 24 hours. When the
    address had been registered again before it was confirmed, the account takes the
    password and name of the registration whose link this is, and every earlier session and
    personal API key ends.

    Args:
        body (ConfirmRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UserView
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ConfirmRequest,
) -> Response[Problem | UserView]:
    """Confirm an email address with the link mailed to it: single use, for 24 hours. When the
    address had been registered again before it was confirmed, the account takes the
    password and name of the registration whose link this is, and every earlier session and
    personal API key ends.

    Args:
        body (ConfirmRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UserView]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: ConfirmRequest,
) -> Problem | UserView | None:
    """Confirm an email address with the link mailed to it: single use, for 24 hours. When the
    address had been registered again before it was confirmed, the account takes the
    password and name of the registration whose link this is, and every earlier session and
    personal API key ends.

    Args:
        body (ConfirmRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UserView
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
