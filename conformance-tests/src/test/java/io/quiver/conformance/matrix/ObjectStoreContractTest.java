package io.quiver.conformance.matrix;

import io.quiver.conformance.LocalNoFsyncStoreFixture;
import io.quiver.conformance.LocalStoreFixture;
import io.quiver.conformance.MemoryStoreFixture;
import io.quiver.conformance.ObjectStoreContract;
import io.quiver.conformance.OnStores;

/**
 * {@link ObjectStoreContract} on the fast stores (memory, local), and on the local store with {@code
 * local.fsync=false}, whose readers must see exactly what they see with durability on.
 */
@OnStores({MemoryStoreFixture.class, LocalStoreFixture.class, LocalNoFsyncStoreFixture.class})
class ObjectStoreContractTest extends ObjectStoreContract {}
