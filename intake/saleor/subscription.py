"""The subscription query a Saleor webhook of this service is registered with: what each
delivery carries. Every event brings the whole order (lines, addresses, parcels, what is charged
now and money that went back), so a delivery that was lost is caught up by the next one, and
`issuedAt`, so that two events never share a body (intake/saleor/__init__.py). A fulfillment's
public metadata carries its parcel's news (intake/saleor/parcel_news.py). The fields are those of
Saleor's GraphQL schema (the types Order, Money, OrderLine, Address, Fulfillment, TransactionItem,
OrderEvent; `totalCharged` since 3.13, when it replaced `totalCaptured`); docs/platforms.md shows
where to paste it. A webhook registered with an earlier query sends no `totalCharged`: its
partly charged orders count nothing until the query is pasted again (intake/saleor/money.py)."""

SUBSCRIPTION_QUERY = """\
subscription {
  event {
    __typename
    issuedAt
    ... on OrderCreated { order { ...OrderForEmails } }
    ... on OrderFullyPaid { order { ...OrderForEmails } }
    ... on OrderCancelled { order { ...OrderForEmails } }
    ... on OrderFulfilled { order { ...OrderForEmails } }
    ... on OrderRefunded { order { ...OrderForEmails } }
    ... on OrderUpdated { order { ...OrderForEmails } }
    ... on FulfillmentCreated { order { ...OrderForEmails } }
    ... on FulfillmentMetadataUpdated { order { ...OrderForEmails } }
  }
}

fragment AddressForEmails on Address {
  firstName
  lastName
  companyName
  streetAddress1
  streetAddress2
  postalCode
  city
  countryArea
  country { code }
  phone
}

fragment OrderForEmails on Order {
  id
  number
  updatedAt
  status
  isPaid
  chargeStatus
  totalCharged { currency amount }
  userEmail
  languageCodeEnum
  billingAddress { ...AddressForEmails }
  shippingAddress { ...AddressForEmails }
  shippingMethodName
  shippingPrice { gross { amount } }
  total { currency gross { amount } tax { amount } }
  voucherCode
  discounts { name total { amount } }
  lines {
    id
    productName
    variantName
    productSku
    quantity
    taxRate
    unitPrice { gross { amount } }
    totalPrice { gross { amount } }
  }
  fulfillments {
    id
    status
    trackingNumber
    metadata { key value }
    lines { quantity orderLine { id productSku } }
  }
  transactions {
    name
    events { id type message amount { amount } }
  }
  events { id type amount }
}
"""
