package storage

import (
	"context"
	"fmt"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// latestDrop reads the tenant's latest drop of the event, removed or not,
// and, on Postgres, locks its row until the transaction ends, so that two
// adds of the event one after the other see each other's. It returns
// gorm.ErrRecordNotFound when the tenant never had the event.
func latestDrop(tx *gorm.DB, tenantID, eventID int64) (dropRow, error) {
	var row dropRow
	err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).
		Where("tenant_id = ? AND event_id = ?", tenantID, eventID).Order("id DESC").Take(&row).Error
	return row, err
}

// reviveDrop brings the removed drop prev back with the settings of next
// (a row newDropRow made) and imports hashes into it as ImportMintLinks
// does, and returns the row as it now stands. See AddDrop.
func reviveDrop(tx *gorm.DB, prev, next dropRow, hashes importedHashes) (dropRow, error) {
	row := prev
	row.Name, row.ImageURL, row.EditCode = next.Name, next.ImageURL, next.EditCode
	row.Starts, row.Ends, row.Codeword, row.RequiredRole = next.Starts, next.Ends, next.Codeword, next.RequiredRole
	row.ExpiresAt, row.LowStock, row.LowStockNotifiedAt, row.RemovedAt = next.ExpiresAt, next.LowStock, nil, nil
	if prev.Method != methodDelivery {
		// A delivery's list is fixed at the service and is how its
		// members get the drop: the drop keeps minting through it.
		row.Method, row.LinkMethod = next.Method, next.LinkMethod
		row.Website, row.WebsiteRequestedAt = next.Website, next.WebsiteRequestedAt
	}
	if next.ChainID != nil {
		row.ChainID = next.ChainID
	}
	err := tx.Exec(`
		UPDATE drops SET name = ?, image_url = ?, edit_code = ?, starts = ?, ends = ?, codeword = ?, required_role = ?,
			expires_at = ?, low_stock = ?, low_stock_notified_at = NULL, low_stock_notice_due = FALSE, removed_at = NULL,
			method = ?, delivery = ?, website = ?, website_requested_at = ?, chain_id = ?
		WHERE id = ? AND removed_at IS NOT NULL`,
		row.Name, row.ImageURL, row.EditCode, row.Starts, row.Ends, row.Codeword, row.RequiredRole,
		row.ExpiresAt, row.LowStock, row.Method, row.LinkMethod, row.Website, row.WebsiteRequestedAt, row.ChainID, row.ID).Error
	if err != nil {
		return dropRow{}, err
	}
	at := next.CreatedAt
	if _, err := insertMintLinks(tx, row.ID, hashes, at); err != nil {
		return dropRow{}, err
	}
	_, err = markClaimed(tx, row.ID, hashes.claimed, at)
	return row, err
}

// EditDrop, in one transaction, changes the settings e gives (those Set)
// of the drop and returns the drop before and after. Its links and
// everything else stay. Changing low_stock re-arms the low-stock notice;
// the website claim method names e.Website, brought by the moderator. It
// returns core.ErrNotFound when the drop does not exist,
// core.ErrDropRemoved when it was removed, core.ErrInvalidWindow when the
// window it would leave ends before it starts, core.ErrDeliveryExists for
// a claim method of a drop minted through its delivery, an error for an
// unknown claim method or a low_stock below 0, ErrNoKey without a key and
// ErrDecrypt when the edit code cannot be decrypted.
func (db *DB) EditDrop(ctx context.Context, dropID int64, e core.DropEdit) (before, after core.Drop, err error) {
	const op = "edit drop"
	if db.cipher == nil {
		return core.Drop{}, core.Drop{}, fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	var old, row dropRow
	err = db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).Where("id = ?", dropID).Take(&old).Error
		switch {
		case err != nil:
			return err
		case old.RemovedAt != nil:
			return fmt.Errorf("drop #%d: %w", dropID, core.ErrDropRemoved)
		}
		if row, err = editedRow(old, e); err != nil {
			return err
		}
		return tx.Exec(`
			UPDATE drops SET starts = ?, ends = ?, codeword = ?, required_role = ?, method = ?, delivery = ?,
				website = ?, website_requested_at = ?, low_stock = ?, low_stock_notified_at = ?
			WHERE id = ?`,
			row.Starts, row.Ends, row.Codeword, row.RequiredRole, row.Method, row.LinkMethod,
			row.Website, row.WebsiteRequestedAt, row.LowStock, row.LowStockNotifiedAt, dropID).Error
	})
	if err != nil {
		return core.Drop{}, core.Drop{}, translate(op, err)
	}
	if before, err = db.drop(old); err == nil {
		after, err = db.drop(row)
	}
	if err != nil {
		return core.Drop{}, core.Drop{}, fmt.Errorf("%s: %w", op, err)
	}
	return before, after, nil
}

// editedRow returns old with e's settings, or the error EditDrop returns
// for them.
func editedRow(old dropRow, e core.DropEdit) (dropRow, error) {
	row := old
	if e.Starts.Set {
		row.Starts = nullTime(e.Starts.To)
	}
	if e.Ends.Set {
		row.Ends = nullTime(e.Ends.To)
	}
	if row.Starts != nil && row.Ends != nil && !row.Starts.Before(*row.Ends) {
		return dropRow{}, fmt.Errorf("drop #%d: %w", old.ID, core.ErrInvalidWindow)
	}
	if e.Codeword.Set {
		row.Codeword = e.Codeword.To
	}
	if e.RequiredRole.Set {
		row.RequiredRole = e.RequiredRole.To
	}
	if e.LowStock.Set && e.LowStock.To != old.LowStock {
		if e.LowStock.To < 0 {
			return dropRow{}, fmt.Errorf("drop #%d: low stock threshold %d is negative", old.ID, e.LowStock.To)
		}
		row.LowStock, row.LowStockNotifiedAt = e.LowStock.To, nil
	}
	if e.Method.Set {
		return editedMethod(row, e)
	}
	return row, nil
}

// editedMethod sets e's claim method in row.
func editedMethod(row dropRow, e core.DropEdit) (dropRow, error) {
	switch d := e.Method.To; {
	case row.Method == methodDelivery:
		return dropRow{}, fmt.Errorf("drop #%d: %w", row.ID, core.ErrDeliveryExists)
	case d == core.ClaimWebsite && e.Website == "":
		return dropRow{}, fmt.Errorf("drop #%d: a website claim method without a website", row.ID)
	case d == core.ClaimWebsite:
		if row.Method != methodWebsite || row.Website != e.Website {
			row.Website, row.WebsiteRequestedAt = e.Website, nil
		}
	case !d.UsesLinks():
		return dropRow{}, fmt.Errorf("drop #%d: unknown claim method %q", row.ID, d)
	}
	row.setClaimMethod(e.Method.To)
	return row, nil
}
