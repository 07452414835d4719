import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the merchant-ops routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const merchantOpsZhCN: LocaleTexts = {
  operations: {
    getV1MerchantMerchantIdSla: {
      summary: '商家 SLA 指标',
      description:
        '最近 `days` 天内的指标：Intent.Surge 投递后的提案响应时延、投递成功率、提案接受率、按时履约率以及决策反馈计数，每项附带样本量 n（n = 0 的指标为 null）。定义见 docs/SUPPLY-OPS.md。运营方（供给密钥）可读取任意商家；使用 API 密钥时还需提供 merchantId 对应的 X-Merchant-Token：商家只能读取自己的 SLA。',
      params: {
        days: '回看窗口天数，1..90，默认 30。',
      },
      fields: {
        'param.days': '回看窗口天数，1..90，默认 30。',
      },
      responses: {
        '200': '带样本量的 SLA 指标。',
        '400':
          '`invalid_query`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_supply_key`: 供给密钥无效或缺失。',
        '404': '`merchant_not_found`: 未注册该 id 的商家智能体。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1MerchantMerchantIdReputation: {
      summary: '重新计算商家信誉',
      description:
        '根据最近 `days` 天内的 SLA 指标、决策事件以及该商家提案的信任分重新计算 0..100 的分数，存为新的快照，并返回该快照及其依据（每个组成项的取值、n、权重和得分）、此前的快照以及与上一次相比的变化。',
      params: {
        days: '回看窗口天数，1..90，默认 30。',
      },
      fields: {
        'param.days': '回看窗口天数，1..90，默认 30。',
      },
      responses: {
        '200': '新的快照及其历史与趋势。',
        '400':
          '`invalid_query`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_supply_key`: 供给密钥无效或缺失。',
        '404': '`merchant_not_found`: 未注册该 id 的商家智能体。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    MetricWindow: {
      '': '计入创建时间晚于 from 且不晚于 to 的记录。',
    },
    SlaProposalResponse: {
      n: '商家以提案作出回应的已送达派发（时延样本）。',
      dispatched: '窗口内创建且已送达的 Intent.Surge 投递。',
      unanswered: '商家未针对该意图提交任何提案的已送达派发。',
      mean_seconds: '从 delivered_at 到首个提案的秒数（分位数采用线性插值）；n = 0 时为 null。',
      sla_seconds: 'workflow_context.proposal_response_sla_seconds；未声明时取派发的 respond_by 默认值 600 秒。',
      within_sla_share: '在 sla_seconds 内回应的数量 / 已派发数量（未回应的计为未达标）；没有派发时为 null。',
    },
    SlaDeliverySuccess: {
      n: 'delivered + dlq；仍处于 pending 或 inflight 的投递不计入。',
      rate: '0..1，保留 4 位小数；n = 0 时为 null。',
      first_attempt_share: '首次尝试即送达且未重放的数量 / n。',
    },
    SlaProposalAcceptance: {
      n: '该商家在窗口内创建的提案。',
      accepted: '其中 proposal_state 为 accepted 或 settled，或其匹配令牌达到 accepted、payment_authorized 或 consumed 的数量。',
      rate: '0..1，保留 4 位小数；n = 0 时为 null。',
    },
    SlaOnTimeFulfillment: {
      n: 'fulfilled + late_delivery 决策事件数。',
      rate: '0..1，保留 4 位小数；n = 0 时为 null。',
    },
    SlaDecisionFeedback: {
      '': '窗口内指向该商家的决策事件，按 event_type 计数。',
      n: '样本量：计算该指标所用的观测数。',
    },
    MerchantReputation: {
      history: '此前的快照，最新的在前，最多 10 条。',
      trend: '与上一次快照相比的变化；首个快照为 null。',
      'trend.delta': 'score − previous_score。',
    },
    ReputationSnapshot: {
      score: '0..100：round(各组成项 weight × value 之和)。',
    },
    ReputationComponent: {
      value: '0..1：观测值；n = 0 时取中性先验值。',
      n: '样本量：计算该指标所用的观测数。',
      points: 'weight × value，保留 2 位小数。',
      prior_used: '该组成项没有样本、采用中性先验值时为 true。',
    },
  },
};
