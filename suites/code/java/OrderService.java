package com.example.shop.orders;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Places and cancels orders. Prices are kept as {@link BigDecimal} with two
 * decimal places; tax is rounded half-up once per order, not per line.
 */
public final class OrderService {

    private static final BigDecimal TAX_RATE = new BigDecimal("0.0825");
    private static final int MAX_LINES = 50;

    private final OrderRepository repository;
    private final PaymentGateway payments;
    private final Clock clock;

    public OrderService(OrderRepository repository, PaymentGateway payments, Clock clock) {
        this.repository = Objects.requireNonNull(repository, "repository");
        this.payments = Objects.requireNonNull(payments, "payments");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public record OrderLine(String sku, int quantity, BigDecimal unitPrice) {
        public OrderLine {
            if (quantity <= 0) {
                throw new IllegalArgumentException("quantity must be positive: " + quantity);
            }
            if (unitPrice.signum() < 0) {
                throw new IllegalArgumentException("negative price for " + sku);
            }
        }

        BigDecimal amount() {
            return unitPrice.multiply(BigDecimal.valueOf(quantity));
        }
    }

    public record Order(UUID id, String customerId, List<OrderLine> lines, BigDecimal subtotal,
                        BigDecimal tax, BigDecimal total, Instant placedAt, Status status) {
        public enum Status { PLACED, PAID, CANCELLED }
    }

    public Order place(String customerId, List<OrderLine> lines) {
        if (lines.isEmpty() || lines.size() > MAX_LINES) {
            throw new IllegalArgumentException("an order needs 1.." + MAX_LINES + " lines, got " + lines.size());
        }
        BigDecimal subtotal = lines.stream()
                .map(OrderLine::amount)
                .reduce(BigDecimal.ZERO, BigDecimal::add)
                .setScale(2, RoundingMode.HALF_UP);
        BigDecimal tax = subtotal.multiply(TAX_RATE).setScale(2, RoundingMode.HALF_UP);
        Order order = new Order(UUID.randomUUID(), customerId, List.copyOf(lines), subtotal, tax,
                subtotal.add(tax), Instant.now(clock), Order.Status.PLACED);
        repository.save(order);
        return order;
    }

    public Order pay(UUID orderId, String cardToken) {
        Order order = find(orderId).orElseThrow(() -> new OrderNotFoundException(orderId));
        if (order.status() != Order.Status.PLACED) {
            throw new IllegalStateException("order " + orderId + " is " + order.status());
        }
        payments.charge(cardToken, order.total(), "order " + orderId);
        Order paid = withStatus(order, Order.Status.PAID);
        repository.save(paid);
        return paid;
    }

    public Order cancel(UUID orderId) {
        Order order = find(orderId).orElseThrow(() -> new OrderNotFoundException(orderId));
        if (order.status() == Order.Status.PAID) {
            payments.refund(orderId.toString(), order.total());
        }
        Order cancelled = withStatus(order, Order.Status.CANCELLED);
        repository.save(cancelled);
        return cancelled;
    }

    public Optional<Order> find(UUID orderId) {
        return repository.findById(orderId);
    }

    private static Order withStatus(Order o, Order.Status status) {
        return new Order(o.id(), o.customerId(), o.lines(), o.subtotal(), o.tax(), o.total(), o.placedAt(), status);
    }

    public static final class OrderNotFoundException extends RuntimeException {
        public OrderNotFoundException(UUID id) {
            super("no order with id " + id);
        }
    }
}
