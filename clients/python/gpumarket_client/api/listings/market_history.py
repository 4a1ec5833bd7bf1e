import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.history_view import HistoryView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    gpu: str | Unset = UNSET,
    bucket: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    currency: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["gpu"] = gpu

    params["bucket"] = bucket

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.isoformat()
    params["from"] = json_from_

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    params["currency"] = currency

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/market/history",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> HistoryView | Problem | None:
    if response.status_code == 200:
        response_200 = HistoryView.from_dict(response.json())

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
) -> Response[HistoryView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    gpu: str | Unset = UNSET,
    bucket: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    currency: str | Unset = UNSET,
) -> Response[HistoryView | Problem]:
    """The market's price history of a GPU, by hour or day. Public.

    Args:
        gpu (str | Unset):
        bucket (str | Unset):
        from_ (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        currency (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HistoryView | Problem]
    """

    kwargs = _get_kwargs(
        gpu=gpu,
        bucket=bucket,
        from_=from_,
        until=until,
        currency=currency,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    gpu: str | Unset = UNSET,
    bucket: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    currency: str | Unset = UNSET,
) -> HistoryView | Problem | None:
    """The market's price history of a GPU, by hour or day. Public.

    Args:
        gpu (str | Unset):
        bucket (str | Unset):
        from_ (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        currency (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HistoryView | Problem
    """

    return sync_detailed(
        client=client,
        gpu=gpu,
        bucket=bucket,
        from_=from_,
        until=until,
        currency=currency,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    gpu: str | Unset = UNSET,
    bucket: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    currency: str | Unset = UNSET,
) -> Response[HistoryView | Problem]:
    """The market's price history of a GPU, by hour or day. Public.

    Args:
        gpu (str | Unset):
        bucket (str | Unset):
        from_ (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        currency (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HistoryView | Problem]
    """

    kwargs = _get_kwargs(
        gpu=gpu,
        bucket=bucket,
        from_=from_,
        until=until,
        currency=currency,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    gpu: str | Unset = UNSET,
    bucket: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    currency: str | Unset = UNSET,
) -> HistoryView | Problem | None:
    """The market's price history of a GPU, by hour or day. Public.

    Args:
        gpu (str | Unset):
        bucket (str | Unset):
        from_ (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        currency (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HistoryView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            gpu=gpu,
            bucket=bucket,
            from_=from_,
            until=until,
            currency=currency,
        )
    ).parsed
