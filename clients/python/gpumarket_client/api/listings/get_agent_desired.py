from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.desired_view import DesiredView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    wait: int | Unset = UNSET,
    version: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["wait"] = wait

    json_version: None | str | Unset
    if isinstance(version, Unset):
        json_version = UNSET
    else:
        json_version = version
    params["version"] = json_version

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/listings/{id}/agent/desired".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DesiredView | Problem | None:
    if response.status_code == 200:
        response_200 = DesiredView.from_dict(response.json())

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
) -> Response[DesiredView | Problem]:
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
    wait: int | Unset = UNSET,
    version: None | str | Unset = UNSET,
) -> Response[DesiredView | Problem]:
    """The listing's machine's desired state, for its agent: answered at once when its
    `version` differs from the one given, else when it changes or `wait` seconds pass (a
    long-poll; the agent connects outward only). The answer's `Date` header is the server's
    clock, which the agent sets its own by.

    Args:
        id (UUID):
        wait (int | Unset):
        version (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DesiredView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        wait=wait,
        version=version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
    version: None | str | Unset = UNSET,
) -> DesiredView | Problem | None:
    """The listing's machine's desired state, for its agent: answered at once when its
    `version` differs from the one given, else when it changes or `wait` seconds pass (a
    long-poll; the agent connects outward only). The answer's `Date` header is the server's
    clock, which the agent sets its own by.

    Args:
        id (UUID):
        wait (int | Unset):
        version (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DesiredView | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        wait=wait,
        version=version,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
    version: None | str | Unset = UNSET,
) -> Response[DesiredView | Problem]:
    """The listing's machine's desired state, for its agent: answered at once when its
    `version` differs from the one given, else when it changes or `wait` seconds pass (a
    long-poll; the agent connects outward only). The answer's `Date` header is the server's
    clock, which the agent sets its own by.

    Args:
        id (UUID):
        wait (int | Unset):
        version (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DesiredView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        wait=wait,
        version=version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
    version: None | str | Unset = UNSET,
) -> DesiredView | Problem | None:
    """The listing's machine's desired state, for its agent: answered at once when its
    `version` differs from the one given, else when it changes or `wait` seconds pass (a
    long-poll; the agent connects outward only). The answer's `Date` header is the server's
    clock, which the agent sets its own by.

    Args:
        id (UUID):
        wait (int | Unset):
        version (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DesiredView | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            wait=wait,
            version=version,
        )
    ).parsed
