"""Contains all the data models used in inputs/outputs"""

from .access_grant_view import AccessGrantView
from .access_input import AccessInput
from .access_patch import AccessPatch
from .access_view import AccessView
from .account_report_view import AccountReportView
from .add_ssh_key_request import AddSshKeyRequest
from .agent_facts_view import AgentFactsView
from .agent_gpu_view import AgentGpuView
from .agent_view import AgentView
from .aligned_cell_view import AlignedCellView
from .announced_view import AnnouncedView
from .api_key_view import ApiKeyView
from .attempt_view import AttemptView
from .audit_actor_view import AuditActorView
from .audit_entry_view import AuditEntryView
from .audit_entry_view_details import AuditEntryViewDetails
from .availability_patch import AvailabilityPatch
from .availability_view import AvailabilityView
from .availability_window_view import AvailabilityWindowView
from .bid_raise_view import BidRaiseView
from .billing_url_view import BillingUrlView
from .billing_view import BillingView
from .book_plan_request import BookPlanRequest
from .booked_plan_view import BookedPlanView
from .booking_container_view import BookingContainerView
from .booking_guarantee_view import BookingGuaranteeView
from .booking_view import BookingView
from .budget_view import BudgetView
from .catalog_view import CatalogView
from .check_view import CheckView
from .community_run_view import CommunityRunView
from .community_run_view_receipt import CommunityRunViewReceipt
from .community_run_view_report import CommunityRunViewReport
from .compared_figures_view import ComparedFiguresView
from .compared_report_view import ComparedReportView
from .comparison_view import ComparisonView
from .confirm_request import ConfirmRequest
from .consistency_view import ConsistencyView
from .container_access_view import ContainerAccessView
from .container_logs_upload import ContainerLogsUpload
from .container_logs_view import ContainerLogsView
from .container_report_view import ContainerReportView
from .create_api_key_request import CreateApiKeyRequest
from .create_booking_request import CreateBookingRequest
from .create_listing_request import CreateListingRequest
from .create_org_key_request import CreateOrgKeyRequest
from .create_org_request import CreateOrgRequest
from .created_api_key_view import CreatedApiKeyView
from .created_org_key_view import CreatedOrgKeyView
from .day_uptime_view import DayUptimeView
from .decode_estimate_view import DecodeEstimateView
from .delivery_view import DeliveryView
from .desired_booking_view import DesiredBookingView
from .desired_container_view import DesiredContainerView
from .desired_view import DesiredView
from .displacement_view import DisplacementView
from .displaces_view import DisplacesView
from .endpoint_view import EndpointView
from .endpoint_with_secret_view import EndpointWithSecretView
from .energy_estimate_view import EnergyEstimateView
from .engine_input import EngineInput
from .engine_patch import EnginePatch
from .engine_view import EngineView
from .entries_view import EntriesView
from .env_var_view import EnvVarView
from .field_error import FieldError
from .formula_view import FormulaView
from .free_segment_view import FreeSegmentView
from .frontier_view import FrontierView
from .gateway_chat_completions_body import GatewayChatCompletionsBody
from .gateway_chat_completions_response_200 import GatewayChatCompletionsResponse200
from .gateway_completions_body import GatewayCompletionsBody
from .gateway_completions_response_200 import GatewayCompletionsResponse200
from .gateway_models_response_200 import GatewayModelsResponse200
from .gateway_tokenize_body import GatewayTokenizeBody
from .gateway_tokenize_response_200 import GatewayTokenizeResponse200
from .gateway_version_response_200 import GatewayVersionResponse200
from .get_org_report_response_200 import GetOrgReportResponse200
from .get_report_proof_response_202 import GetReportProofResponse202
from .goodput_view import GoodputView
from .gpu_detail_view import GpuDetailView
from .gpu_health_view import GpuHealthView
from .gpu_list_view import GpuListView
from .gpu_samples_view import GpuSamplesView
from .gpu_view import GpuView
from .guarantee_view import GuaranteeView
from .hardware_match_view import HardwareMatchView
from .hardware_patch import HardwarePatch
from .hardware_view import HardwareView
from .health import Health
from .heartbeat_view import HeartbeatView
from .history_point_view import HistoryPointView
from .history_view import HistoryView
from .interruption_view import InterruptionView
from .interruptions_view import InterruptionsView
from .introspect_request import IntrospectRequest
from .introspection_view import IntrospectionView
from .invitation_view import InvitationView
from .invite_request import InviteRequest
from .leaderboard_row_view import LeaderboardRowView
from .ledger_entry_view import LedgerEntryView
from .listing_verification_view import ListingVerificationView
from .listing_view import ListingView
from .liveness_state_view import LivenessStateView
from .liveness_view import LivenessView
from .log_entry_view import LogEntryView
from .log_position_view import LogPositionView
from .log_status_view import LogStatusView
from .login_request import LoginRequest
from .logout_request import LogoutRequest
from .logs_wanted_view import LogsWantedView
from .maintenance_window_view import MaintenanceWindowView
from .match_view import MatchView
from .measured_cell_view import MeasuredCellView
from .member_view import MemberView
from .model_detail_view import ModelDetailView
from .model_list_view import ModelListView
from .model_view import ModelView
from .money_view import MoneyView
from .my_org_view import MyOrgView
from .new_endpoint_request import NewEndpointRequest
from .new_window_request import NewWindowRequest
from .offer_view import OfferView
from .offers_view import OffersView
from .org_details_view import OrgDetailsView
from .org_view import OrgView
from .page_api_key_view import PageApiKeyView
from .page_api_key_view_items_item import PageApiKeyViewItemsItem
from .page_audit_entry_view import PageAuditEntryView
from .page_audit_entry_view_items_item import PageAuditEntryViewItemsItem
from .page_audit_entry_view_items_item_details import PageAuditEntryViewItemsItemDetails
from .page_booking_view import PageBookingView
from .page_booking_view_items_item import PageBookingViewItemsItem
from .page_community_run_view import PageCommunityRunView
from .page_community_run_view_items_item import PageCommunityRunViewItemsItem
from .page_community_run_view_items_item_receipt import PageCommunityRunViewItemsItemReceipt
from .page_community_run_view_items_item_report import PageCommunityRunViewItemsItemReport
from .page_delivery_view import PageDeliveryView
from .page_delivery_view_items_item import PageDeliveryViewItemsItem
from .page_endpoint_view import PageEndpointView
from .page_endpoint_view_items_item import PageEndpointViewItemsItem
from .page_leaderboard_row_view import PageLeaderboardRowView
from .page_leaderboard_row_view_items_item import PageLeaderboardRowViewItemsItem
from .page_my_org_view import PageMyOrgView
from .page_my_org_view_items_item import PageMyOrgViewItemsItem
from .page_public_org_view import PagePublicOrgView
from .page_public_org_view_items_item import PagePublicOrgViewItemsItem
from .page_report_view import PageReportView
from .page_report_view_items_item import PageReportViewItemsItem
from .page_report_view_items_item_envelope import PageReportViewItemsItemEnvelope
from .page_report_view_items_item_summary import PageReportViewItemsItemSummary
from .page_search_hit_view import PageSearchHitView
from .page_search_hit_view_items_item import PageSearchHitViewItemsItem
from .page_ssh_key_view import PageSshKeyView
from .page_ssh_key_view_items_item import PageSshKeyViewItemsItem
from .password_request import PasswordRequest
from .payment_view import PaymentView
from .payouts_view import PayoutsView
from .person_export import PersonExport
from .person_export_tables import PersonExportTables
from .plan_limits_view import PlanLimitsView
from .plan_view import PlanView
from .planner_gpu_model_view import PlannerGpuModelView
from .planner_gpu_view import PlannerGpuView
from .planner_row_view import PlannerRowView
from .planner_view import PlannerView
from .predicted_view import PredictedView
from .preflight_check_view import PreflightCheckView
from .preflight_view import PreflightView
from .presence_view import PresenceView
from .price_patch import PricePatch
from .price_spread_view import PriceSpreadView
from .price_view import PriceView
from .problem import Problem
from .proof_view import ProofView
from .public_org_view import PublicOrgView
from .put_budget_request import PutBudgetRequest
from .quote_view import QuoteView
from .raise_bid_request import RaiseBidRequest
from .ratios_view import RatiosView
from .readiness import Readiness
from .refresh_request import RefreshRequest
from .register_request import RegisterRequest
from .register_response import RegisterResponse
from .report_view import ReportView
from .report_view_envelope import ReportViewEnvelope
from .report_view_summary import ReportViewSummary
from .reset_confirm_request import ResetConfirmRequest
from .reset_request import ResetRequest
from .revoked_view import RevokedView
from .role_change import RoleChange
from .role_view import RoleView
from .run_view import RunView
from .search_hit_view import SearchHitView
from .share_request import ShareRequest
from .share_view import ShareView
from .shared_link_view import SharedLinkView
from .shared_links_view import SharedLinksView
from .signing_key_view import SigningKeyView
from .ssh_key_view import SshKeyView
from .ssh_view import SshView
from .statement_view import StatementView
from .submit_run_request import SubmitRunRequest
from .submit_run_request_report import SubmitRunRequestReport
from .submitter_view import SubmitterView
from .telemetry_view import TelemetryView
from .telemetry_wanted_view import TelemetryWantedView
from .test_event_view import TestEventView
from .token_pair_view import TokenPairView
from .total_view import TotalView
from .update_listing_request import UpdateListingRequest
from .uptime_statement_view import UptimeStatementView
from .uptime_view import UptimeView
from .usage_bucket_view import UsageBucketView
from .usage_totals_view import UsageTotalsView
from .usage_view import UsageView
from .user_view import UserView
from .verification_check_view import VerificationCheckView
from .verification_cost_view import VerificationCostView
from .verification_summary_view import VerificationSummaryView
from .verify_request import VerifyRequest
from .webhook_answer import WebhookAnswer

__all__ = (
    "AccessGrantView",
    "AccessInput",
    "AccessPatch",
    "AccessView",
    "AccountReportView",
    "AddSshKeyRequest",
    "AgentFactsView",
    "AgentGpuView",
    "AgentView",
    "AlignedCellView",
    "AnnouncedView",
    "ApiKeyView",
    "AttemptView",
    "AuditActorView",
    "AuditEntryView",
    "AuditEntryViewDetails",
    "AvailabilityPatch",
    "AvailabilityView",
    "AvailabilityWindowView",
    "BidRaiseView",
    "BillingUrlView",
    "BillingView",
    "BookedPlanView",
    "BookingContainerView",
    "BookingGuaranteeView",
    "BookingView",
    "BookPlanRequest",
    "BudgetView",
    "CatalogView",
    "CheckView",
    "CommunityRunView",
    "CommunityRunViewReceipt",
    "CommunityRunViewReport",
    "ComparedFiguresView",
    "ComparedReportView",
    "ComparisonView",
    "ConfirmRequest",
    "ConsistencyView",
    "ContainerAccessView",
    "ContainerLogsUpload",
    "ContainerLogsView",
    "ContainerReportView",
    "CreateApiKeyRequest",
    "CreateBookingRequest",
    "CreatedApiKeyView",
    "CreatedOrgKeyView",
    "CreateListingRequest",
    "CreateOrgKeyRequest",
    "CreateOrgRequest",
    "DayUptimeView",
    "DecodeEstimateView",
    "DeliveryView",
    "DesiredBookingView",
    "DesiredContainerView",
    "DesiredView",
    "DisplacementView",
    "DisplacesView",
    "EndpointView",
    "EndpointWithSecretView",
    "EnergyEstimateView",
    "EngineInput",
    "EnginePatch",
    "EngineView",
    "EntriesView",
    "EnvVarView",
    "FieldError",
    "FormulaView",
    "FreeSegmentView",
    "FrontierView",
    "GatewayChatCompletionsBody",
    "GatewayChatCompletionsResponse200",
    "GatewayCompletionsBody",
    "GatewayCompletionsResponse200",
    "GatewayModelsResponse200",
    "GatewayTokenizeBody",
    "GatewayTokenizeResponse200",
    "GatewayVersionResponse200",
    "GetOrgReportResponse200",
    "GetReportProofResponse202",
    "GoodputView",
    "GpuDetailView",
    "GpuHealthView",
    "GpuListView",
    "GpuSamplesView",
    "GpuView",
    "GuaranteeView",
    "HardwareMatchView",
    "HardwarePatch",
    "HardwareView",
    "Health",
    "HeartbeatView",
    "HistoryPointView",
    "HistoryView",
    "InterruptionsView",
    "InterruptionView",
    "IntrospectionView",
    "IntrospectRequest",
    "InvitationView",
    "InviteRequest",
    "LeaderboardRowView",
    "LedgerEntryView",
    "ListingVerificationView",
    "ListingView",
    "LivenessStateView",
    "LivenessView",
    "LogEntryView",
    "LoginRequest",
    "LogoutRequest",
    "LogPositionView",
    "LogStatusView",
    "LogsWantedView",
    "MaintenanceWindowView",
    "MatchView",
    "MeasuredCellView",
    "MemberView",
    "ModelDetailView",
    "ModelListView",
    "ModelView",
    "MoneyView",
    "MyOrgView",
    "NewEndpointRequest",
    "NewWindowRequest",
    "OffersView",
    "OfferView",
    "OrgDetailsView",
    "OrgView",
    "PageApiKeyView",
    "PageApiKeyViewItemsItem",
    "PageAuditEntryView",
    "PageAuditEntryViewItemsItem",
    "PageAuditEntryViewItemsItemDetails",
    "PageBookingView",
    "PageBookingViewItemsItem",
    "PageCommunityRunView",
    "PageCommunityRunViewItemsItem",
    "PageCommunityRunViewItemsItemReceipt",
    "PageCommunityRunViewItemsItemReport",
    "PageDeliveryView",
    "PageDeliveryViewItemsItem",
    "PageEndpointView",
    "PageEndpointViewItemsItem",
    "PageLeaderboardRowView",
    "PageLeaderboardRowViewItemsItem",
    "PageMyOrgView",
    "PageMyOrgViewItemsItem",
    "PagePublicOrgView",
    "PagePublicOrgViewItemsItem",
    "PageReportView",
    "PageReportViewItemsItem",
    "PageReportViewItemsItemEnvelope",
    "PageReportViewItemsItemSummary",
    "PageSearchHitView",
    "PageSearchHitViewItemsItem",
    "PageSshKeyView",
    "PageSshKeyViewItemsItem",
    "PasswordRequest",
    "PaymentView",
    "PayoutsView",
    "PersonExport",
    "PersonExportTables",
    "PlanLimitsView",
    "PlannerGpuModelView",
    "PlannerGpuView",
    "PlannerRowView",
    "PlannerView",
    "PlanView",
    "PredictedView",
    "PreflightCheckView",
    "PreflightView",
    "PresenceView",
    "PricePatch",
    "PriceSpreadView",
    "PriceView",
    "Problem",
    "ProofView",
    "PublicOrgView",
    "PutBudgetRequest",
    "QuoteView",
    "RaiseBidRequest",
    "RatiosView",
    "Readiness",
    "RefreshRequest",
    "RegisterRequest",
    "RegisterResponse",
    "ReportView",
    "ReportViewEnvelope",
    "ReportViewSummary",
    "ResetConfirmRequest",
    "ResetRequest",
    "RevokedView",
    "RoleChange",
    "RoleView",
    "RunView",
    "SearchHitView",
    "SharedLinksView",
    "SharedLinkView",
    "ShareRequest",
    "ShareView",
    "SigningKeyView",
    "SshKeyView",
    "SshView",
    "StatementView",
    "SubmitRunRequest",
    "SubmitRunRequestReport",
    "SubmitterView",
    "TelemetryView",
    "TelemetryWantedView",
    "TestEventView",
    "TokenPairView",
    "TotalView",
    "UpdateListingRequest",
    "UptimeStatementView",
    "UptimeView",
    "UsageBucketView",
    "UsageTotalsView",
    "UsageView",
    "UserView",
    "VerificationCheckView",
    "VerificationCostView",
    "VerificationSummaryView",
    "VerifyRequest",
    "WebhookAnswer",
)
