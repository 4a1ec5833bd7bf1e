from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.preflight_view import PreflightView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    profile: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_profile: None | str | Unset
    if isinstance(profile, Unset):
        json_profile = UNSET
    else:
        json_profile = profile
    params["profile"] = json_profile

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/listings/{id}/preflight".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PreflightView | Problem | None:
    if response.status_code == 200:
        response_200 = PreflightView.from_dict(response.json())

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
) -> Response[PreflightView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    profile: None | str | Unset = UNSET,
) -> Response[PreflightView | Problem]:
    """Run a preflight of the listing now (members of its organisation): the engine's checks
    (within 10 s) and its agent's. It spends the verification budget: one of the
    organisation's daily verification runs.

    Args:
        id (UUID):
        profile (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PreflightView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        profile=profile,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    profile: None | str | Unset = UNSET,
) -> PreflightView | Problem | None:
    """Run a preflight of the listing now (members of its organisation): the engine's checks
    (within 10 s) and its agent's. It spends the verification budget: one of the
    organisation's daily verification runs.

    Args:
        id (UUID):
        profile (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PreflightView | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        profile=profile,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    profile: None | str | Unset = UNSET,
) -> Response[PreflightView | Problem]:
    """Run a preflight of the listing now (members of its organisation): the engine's checks
    (within 10 s) and its agent's. It spends the verification budget: one of the
    organisation's daily verification runs.

    Args:
        id (UUID):
        profile (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PreflightView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        profile=profile,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    profile: None | str | Unset = UNSET,
) -> PreflightView | Problem | None:
    """Run a preflight of the listing now (members of its organisation): the engine's checks
    (within 10 s) and its agent's. It spends the verification budget: one of the
    organisation's daily verification runs.

    Args:
        id (UUID):
        profile (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PreflightView | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            profile=profile,
        )
    ).parsed
