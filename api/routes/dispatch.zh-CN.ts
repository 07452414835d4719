/** zh-CN translations of the dispatch queue route texts (merged into openapi-locales). */
export const dispatchZhCN: Record<string, string> = {
  // routes
  'Intent.Surge dispatch queue': 'Intent.Surge 派发队列',
  "Counts per state and the newest deliveries (filter by state, merchant_id, intent_id), each with its last attempt. Operators (supply key) see every merchant; an API key with X-Merchant-Token sees that merchant's deliveries only (another merchant_id filter lists nothing).":
    '各状态的计数以及最新的投递（可按 state、merchant_id、intent_id 过滤），每条附带其最近一次尝试。运营方（供给密钥）可查看所有商家；使用 API 密钥并提供 X-Merchant-Token 时只能查看该商家自己的投递（按其他 merchant_id 过滤时列表为空）。',
  "Operators see any delivery; a merchant (API key with X-Merchant-Token) its own: another merchant's answers 404 as an unknown id.":
    '运营方可查看任意投递；商家（API 密钥加 X-Merchant-Token）只能查看自己的投递：其他商家的投递与未知 id 一样返回 404。',
  'Queue summary and deliveries.': '队列汇总与投递列表。',
  'One delivery with every attempt': '单条投递及其全部尝试',
  'The delivery and its attempts, oldest first.': '该投递及其尝试记录（按时间从早到晚）。',
  'No delivery with this id.': '不存在该 id 的投递。',
  'Replay dead-lettered deliveries': '重放死信队列中的投递',
  'Replays the named delivery, or every dead-lettered one (up to 2000 per call), each as a new delivery run with the same webhook-id. A delivery that was delivered is never sent again.':
    '重放指定的投递，或全部死信投递（每次调用最多 2000 条），每条作为使用相同 webhook-id 的新投递运行。已成功投递的投递不会再次发送。',
  'The replays started.': '已启动的重放。',
  'Still starting replays; the workflow id tells where.': '仍在启动重放；可通过工作流 id 查看进度。',
  'The delivery is not dead-lettered.': '该投递不在死信队列中。',
  'Temporal is not reachable.': '无法连接 Temporal。',
  // fields
  'Newest first; 1..500, default 100.': '最新的在前；1..500，默认 100。',
  '0: first run; n: n-th replay out of the dead-letter queue.': '0：首次运行；n：从死信队列的第 n 次重放。',
  'Also the webhook-id header of every attempt.': '也是每次尝试的 webhook-id 请求头。',
  'The Temporal workflow of the current run (delivery-<id>[-replay-<n>]).': '当前运行对应的 Temporal 工作流（delivery-<id>[-replay-<n>]）。',
  'Counts per state for the merchant_id / intent_id filter.': '在 merchant_id / intent_id 过滤条件下各状态的计数。',
  'Absent: every dead-lettered delivery (up to 2000 per call; see remaining).': '省略时：全部死信投递（每次调用最多 2000 条；见 remaining）。',
  'scheduling: the replay workflow is still starting runs; follow replay_workflow_id.': 'scheduling：重放工作流仍在启动运行；请跟踪 replay_workflow_id。',
  'Dead-lettered deliveries left after this call.': '本次调用后剩余的死信投递数。',
};
