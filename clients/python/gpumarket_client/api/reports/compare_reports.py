from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.comparison_view import ComparisonView
from ...models.problem import Problem
from ...types import UNSET, Response


def _get_kwargs(
    *,
    reports: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["reports"] = reports

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/compare",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ComparisonView | Problem | None:
    if response.status_code == 200:
        response_200 = ComparisonView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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
) -> Response[ComparisonView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    reports: str,
) -> Response[ComparisonView | Problem]:
    """Two or three reports side by side, cell by cell: each report's figures, their ratios to the
    first report's, which figures differ by more than 5 %, the standards they follow, and
    each context's throughput–interactivity frontier. A private report is compared only by
    those who may see it (to anyone else it does not exist).

    Args:
        reports (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ComparisonView | Problem]
    """

    kwargs = _get_kwargs(
        reports=reports,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    reports: str,
) -> ComparisonView | Problem | None:
    """Two or three reports side by side, cell by cell: each report's figures, their ratios to the
    first report's, which figures differ by more than 5 %, the standards they follow, and
    each context's throughput–interactivity frontier. A private report is compared only by
    those who may see it (to anyone else it does not exist).

    Args:
        reports (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ComparisonView | Problem
    """

    return sync_detailed(
        client=client,
        reports=reports,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    reports: str,
) -> Response[ComparisonView | Problem]:
    """Two or three reports side by side, cell by cell: each report's figures, their ratios to the
    first report's, which figures differ by more than 5 %, the standards they follow, and
    each context's throughput–interactivity frontier. A private report is compared only by
    those who may see it (to anyone else it does not exist).

    Args:
        reports (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ComparisonView | Problem]
    """

    kwargs = _get_kwargs(
        reports=reports,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    reports: str,
) -> ComparisonView | Problem | None:
    """Two or three reports side by side, cell by cell: each report's figures, their ratios to the
    first report's, which figures differ by more than 5 %, the standards they follow, and
    each context's throughput–interactivity frontier. A private report is compared only by
    those who may see it (to anyone else it does not exist).

    Args:
        reports (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ComparisonView | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            reports=reports,
        )
    ).parsed
