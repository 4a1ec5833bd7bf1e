from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_report_view import PageReportView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    model: None | str | Unset = UNSET,
    gpu: None | str | Unset = UNSET,
    kind: None | str | Unset = UNSET,
    cursor: None | Unset | UUID = UNSET,
    limit: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_model: None | str | Unset
    if isinstance(model, Unset):
        json_model = UNSET
    else:
        json_model = model
    params["model"] = json_model

    json_gpu: None | str | Unset
    if isinstance(gpu, Unset):
        json_gpu = UNSET
    else:
        json_gpu = gpu
    params["gpu"] = json_gpu

    json_kind: None | str | Unset
    if isinstance(kind, Unset):
        json_kind = UNSET
    else:
        json_kind = kind
    params["kind"] = json_kind

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    elif isinstance(cursor, UUID):
        json_cursor = str(cursor)
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    json_limit: int | None | Unset
    if isinstance(limit, Unset):
        json_limit = UNSET
    else:
        json_limit = limit
    params["limit"] = json_limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/reports",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageReportView | Problem | None:
    if response.status_code == 200:
        response_200 = PageReportView.from_dict(response.json())

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
) -> Response[PageReportView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    model: None | str | Unset = UNSET,
    gpu: None | str | Unset = UNSET,
    kind: None | str | Unset = UNSET,
    cursor: None | Unset | UUID = UNSET,
    limit: int | None | Unset = UNSET,
) -> Response[PageReportView | Problem]:
    """Every public signed report, newest first, a page at a time. Public; private reports are
    never listed (see `GET /reports/{id}` for envelopes that are withheld).

    Args:
        model (None | str | Unset):
        gpu (None | str | Unset):
        kind (None | str | Unset):
        cursor (None | Unset | UUID):
        limit (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageReportView | Problem]
    """

    kwargs = _get_kwargs(
        model=model,
        gpu=gpu,
        kind=kind,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    model: None | str | Unset = UNSET,
    gpu: None | str | Unset = UNSET,
    kind: None | str | Unset = UNSET,
    cursor: None | Unset | UUID = UNSET,
    limit: int | None | Unset = UNSET,
) -> PageReportView | Problem | None:
    """Every public signed report, newest first, a page at a time. Public; private reports are
    never listed (see `GET /reports/{id}` for envelopes that are withheld).

    Args:
        model (None | str | Unset):
        gpu (None | str | Unset):
        kind (None | str | Unset):
        cursor (None | Unset | UUID):
        limit (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageReportView | Problem
    """

    return sync_detailed(
        client=client,
        model=model,
        gpu=gpu,
        kind=kind,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    model: None | str | Unset = UNSET,
    gpu: None | str | Unset = UNSET,
    kind: None | str | Unset = UNSET,
    cursor: None | Unset | UUID = UNSET,
    limit: int | None | Unset = UNSET,
) -> Response[PageReportView | Problem]:
    """Every public signed report, newest first, a page at a time. Public; private reports are
    never listed (see `GET /reports/{id}` for envelopes that are withheld).

    Args:
        model (None | str | Unset):
        gpu (None | str | Unset):
        kind (None | str | Unset):
        cursor (None | Unset | UUID):
        limit (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageReportView | Problem]
    """

    kwargs = _get_kwargs(
        model=model,
        gpu=gpu,
        kind=kind,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    model: None | str | Unset = UNSET,
    gpu: None | str | Unset = UNSET,
    kind: None | str | Unset = UNSET,
    cursor: None | Unset | UUID = UNSET,
    limit: int | None | Unset = UNSET,
) -> PageReportView | Problem | None:
    """Every public signed report, newest first, a page at a time. Public; private reports are
    never listed (see `GET /reports/{id}` for envelopes that are withheld).

    Args:
        model (None | str | Unset):
        gpu (None | str | Unset):
        kind (None | str | Unset):
        cursor (None | Unset | UUID):
        limit (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageReportView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            model=model,
            gpu=gpu,
            kind=kind,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
